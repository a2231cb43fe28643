#include "models/unifieddiff.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace reconscope::models {

namespace {

using Lines = std::vector<std::string_view>;

// difflib.SplitLines: every line keeps its "\n"; the last one (possibly empty) gets one too,
// which is why the texts are copied with a "\n" appended.
Lines splitLines(std::string_view text)
{
    Lines lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end + 1 - start));
        start = end + 1;
    }
    return lines;
}

struct Match
{
    int a = 0;
    int b = 0;
    int size = 0;
};

struct OpCode
{
    char tag = 'e'; // equal, replace, delete, insert
    int i1 = 0;
    int i2 = 0;
    int j1 = 0;
    int j2 = 0;
};

// SequenceMatcher without a junk function, autojunk on.
class Matcher
{
public:
    Matcher(const Lines &a, const Lines &b)
        : m_a(a)
        , m_b(b)
    {
        for (int j = 0; j < int(b.size()); ++j)
            m_b2j[b[j]].push_back(j);
        const int n = int(b.size());
        if (n >= 200) {
            const std::size_t test = std::size_t(n / 100 + 1);
            for (auto it = m_b2j.begin(); it != m_b2j.end();) {
                if (it->second.size() > test)
                    it = m_b2j.erase(it);
                else
                    ++it;
            }
        }
    }

    std::vector<OpCode> opCodes() const
    {
        std::vector<OpCode> codes;
        int i = 0;
        int j = 0;
        for (const Match &m : matchingBlocks()) {
            char tag = 0;
            if (i < m.a && j < m.b)
                tag = 'r';
            else if (i < m.a)
                tag = 'd';
            else if (j < m.b)
                tag = 'i';
            if (tag)
                codes.push_back({ tag, i, m.a, j, m.b });
            i = m.a + m.size;
            j = m.b + m.size;
            if (m.size)
                codes.push_back({ 'e', m.a, i, m.b, j });
        }
        return codes;
    }

private:
    Match longestMatch(int alo, int ahi, int blo, int bhi) const
    {
        int besti = alo;
        int bestj = blo;
        int bestsize = 0;
        std::unordered_map<int, int> j2len;
        for (int i = alo; i != ahi; ++i) {
            std::unordered_map<int, int> next;
            auto found = m_b2j.find(m_a[i]);
            if (found != m_b2j.end()) {
                for (const int j : found->second) {
                    if (j < blo)
                        continue;
                    if (j >= bhi)
                        break;
                    auto previous = j2len.find(j - 1);
                    const int k = (previous == j2len.end() ? 0 : previous->second) + 1;
                    next[j] = k;
                    if (k > bestsize) {
                        besti = i - k + 1;
                        bestj = j - k + 1;
                        bestsize = k;
                    }
                }
            }
            j2len = std::move(next);
        }
        // Extended by equal lines on both sides (the popular lines left out of m_b2j).
        while (besti > alo && bestj > blo && m_a[besti - 1] == m_b[bestj - 1]) {
            --besti;
            --bestj;
            ++bestsize;
        }
        while (besti + bestsize < ahi && bestj + bestsize < bhi
               && m_a[besti + bestsize] == m_b[bestj + bestsize])
            ++bestsize;
        return { besti, bestj, bestsize };
    }

    void collect(int alo, int ahi, int blo, int bhi, std::vector<Match> &out) const
    {
        const Match m = longestMatch(alo, ahi, blo, bhi);
        if (m.size == 0)
            return;
        if (alo < m.a && blo < m.b)
            collect(alo, m.a, blo, m.b, out);
        out.push_back(m);
        if (m.a + m.size < ahi && m.b + m.size < bhi)
            collect(m.a + m.size, ahi, m.b + m.size, bhi, out);
    }

    std::vector<Match> matchingBlocks() const
    {
        std::vector<Match> matched;
        collect(0, int(m_a.size()), 0, int(m_b.size()), matched);
        std::vector<Match> blocks;
        Match current;
        for (const Match &m : matched) {
            if (current.a + current.size == m.a && current.b + current.size == m.b) {
                current.size += m.size;
            } else {
                if (current.size)
                    blocks.push_back(current);
                current = m;
            }
        }
        if (current.size)
            blocks.push_back(current);
        blocks.push_back({ int(m_a.size()), int(m_b.size()), 0 });
        return blocks;
    }

    const Lines &m_a;
    const Lines &m_b;
    std::unordered_map<std::string_view, std::vector<int>> m_b2j;
};

std::vector<std::vector<OpCode>> groupedOpCodes(std::vector<OpCode> codes, int n)
{
    if (codes.empty())
        codes.push_back({ 'e', 0, 1, 0, 1 });
    if (codes.front().tag == 'e') {
        OpCode &c = codes.front();
        c.i1 = std::max(c.i1, c.i2 - n);
        c.j1 = std::max(c.j1, c.j2 - n);
    }
    if (codes.back().tag == 'e') {
        OpCode &c = codes.back();
        c.i2 = std::min(c.i2, c.i1 + n);
        c.j2 = std::min(c.j2, c.j1 + n);
    }
    std::vector<std::vector<OpCode>> groups;
    std::vector<OpCode> group;
    for (OpCode c : codes) {
        if (c.tag == 'e' && c.i2 - c.i1 > 2 * n) {
            group.push_back(
                { 'e', c.i1, std::min(c.i2, c.i1 + n), c.j1, std::min(c.j2, c.j1 + n) });
            groups.push_back(std::move(group));
            group.clear();
            c.i1 = std::max(c.i1, c.i2 - n);
            c.j1 = std::max(c.j1, c.j2 - n);
        }
        group.push_back(c);
    }
    if (!group.empty() && !(group.size() == 1 && group.front().tag == 'e'))
        groups.push_back(std::move(group));
    return groups;
}

std::string unifiedRange(int start, int stop)
{
    int beginning = start + 1;
    const int length = stop - start;
    if (length == 1)
        return std::to_string(beginning);
    if (length == 0)
        --beginning;
    return std::to_string(beginning) + ',' + std::to_string(length);
}

} // namespace

std::string unifiedDiff(std::string_view a, std::string_view b, int context)
{
    const std::string textA = std::string(a) + '\n';
    const std::string textB = std::string(b) + '\n';
    const Lines linesA = splitLines(textA);
    const Lines linesB = splitLines(textB);
    const Matcher matcher(linesA, linesB);
    std::string out;
    for (const std::vector<OpCode> &group : groupedOpCodes(matcher.opCodes(), context)) {
        out += "@@ -" + unifiedRange(group.front().i1, group.back().i2) + " +"
            + unifiedRange(group.front().j1, group.back().j2) + " @@\n";
        for (const OpCode &c : group) {
            if (c.tag == 'e') {
                for (int i = c.i1; i < c.i2; ++i)
                    out.append(" ").append(linesA[i]);
                continue;
            }
            if (c.tag == 'r' || c.tag == 'd') {
                for (int i = c.i1; i < c.i2; ++i)
                    out.append("-").append(linesA[i]);
            }
            if (c.tag == 'r' || c.tag == 'i') {
                for (int j = c.j1; j < c.j2; ++j)
                    out.append("+").append(linesB[j]);
            }
        }
    }
    return out;
}

} // namespace reconscope::models
