#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace reconscope::controller::console {

// A large batch sorted a step at a time: indexes of the caller's rows are pushed in, closed into
// sorted runs (one per turn, say), and the runs merged pairwise, level by level, one merge per
// mergeStep(), so that the caller can stop between steps when its time is up and go on in a
// later turn. Stable: rows that compare equal keep the order they were pushed in. `less` compares
// two indexes; a caller whose rows have no order passes ordered = false and the runs are kept as
// pushed (no comparison made).
class SortedRuns
{
public:
    void reserve(std::size_t size) { m_order.reserve(size); }
    void push(std::uint32_t index) { m_order.push_back(index); }

    // Closes the open run (the indexes pushed since the last close), sorting it unless it is in
    // order already (a list arriving in the order shown costs a comparison per row).
    template<typename Less>
    void closeRun(bool ordered, Less less)
    {
        const std::size_t start = m_runs.back();
        if (start == m_order.size())
            return;
        const auto begin = m_order.begin() + std::ptrdiff_t(start);
        if (ordered && !std::is_sorted(begin, m_order.end(), less))
            std::stable_sort(begin, m_order.end(), less);
        m_runs.push_back(m_order.size());
    }

    // Puts a run (sorted already, every run closed) before all others.
    void prependRun(const std::vector<std::uint32_t> &run)
    {
        if (run.empty())
            return;
        m_order.insert(m_order.begin(), run.begin(), run.end());
        for (std::size_t i = 1; i < m_runs.size(); ++i)
            m_runs[i] += run.size();
        m_runs.insert(m_runs.begin() + 1, run.size());
        m_mergeAt = 0;
    }

    // Whether the closed runs are one.
    bool merged() const { return m_runs.size() <= 2; }

    // Merges one pair of neighbouring runs (the next pair of the current level; two runs already
    // in order are one run as they are).
    template<typename Less>
    void mergeStep(bool ordered, Less less)
    {
        if (merged())
            return;
        if (m_mergeAt + 2 >= m_runs.size())
            m_mergeAt = 0;
        const auto first = m_order.begin();
        const auto middle = first + std::ptrdiff_t(m_runs[m_mergeAt + 1]);
        if (ordered && less(*middle, *(middle - 1)))
            std::inplace_merge(first + std::ptrdiff_t(m_runs[m_mergeAt]),
                               middle,
                               first + std::ptrdiff_t(m_runs[m_mergeAt + 2]),
                               less);
        m_runs.erase(m_runs.begin() + std::ptrdiff_t(m_mergeAt) + 1);
        ++m_mergeAt;
    }

    // The indexes: in order once merged().
    const std::vector<std::uint32_t> &order() const { return m_order; }
    std::size_t size() const { return m_order.size(); }
    bool empty() const { return m_order.empty(); }

private:
    std::vector<std::uint32_t> m_order;
    std::vector<std::size_t> m_runs{ 0 }; // run boundaries in m_order
    std::size_t m_mergeAt = 0; // the next pair of runs to merge
};

} // namespace reconscope::controller::console
