#pragma once

#include <nlohmann/json.hpp>

#include <QString>

#include <optional>
#include <string>

namespace reconscope::controller::apimachinery {

// resource.Quantity as kube-apiserver decodes, compares and prints it (k8s.io/apimachinery
// pkg/api/resource): the exact decimal value, rounded up to a multiple of 10^-9 and, for binary
// suffixes, capped at 2^63-1; the format its suffix names; the text String() prints: the input
// when ParseQuantity keeps it as canonical, else the canonical form ("1000m" prints "1", "1.5Gi"
// "1536Mi", "0.5" "500m").
class Quantity
{
public:
    enum class Format { DecimalExponent, BinarySI, DecimalSI };

    // ParseQuantity; nullopt with `error` set to upstream's message when the text is no
    // quantity ("quantities must match the regular expression ...", "unable to parse quantity's
    // suffix", "unable to parse numeric part of quantity").
    static std::optional<Quantity> parse(const QString &text, QString *error = nullptr);
    // Quantity.UnmarshalJSON: a string's text or a number's, spaces trimmed; null is zero.
    static std::optional<Quantity> fromJson(const nlohmann::json &value, QString *error = nullptr);

    // Quantity.String(): the input kept, else the canonical form.
    QString toString() const;
    // The canonical form alone (what two equal values share).
    QString canonical() const;
    int sign() const { return m_digits == "0" ? 0 : (m_negative ? -1 : 1); }
    // -1, 0 or 1 as Quantity.Cmp.
    int compare(const Quantity &other) const;
    // Whether MilliValue() is a multiple of 1000 (the check of the integer resources).
    bool isWhole() const;
    Format format() const { return m_format; }

private:
    bool m_negative = false;
    std::string m_digits = "0"; // the unscaled magnitude, without leading zeros
    int m_exponent = 0; // value = digits * 10^exponent
    Format m_format = Format::DecimalSI;
    QString m_text; // the input, when upstream keeps it as the printed form
};

} // namespace reconscope::controller::apimachinery
