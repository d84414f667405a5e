#include "changes/ScanEntry.h"

#include <QList>

namespace sbw {
namespace {

std::optional<qint64> parseDigits(QByteArrayView digits)
{
    // 18 digits stay below 2^63: larger numbers are not sizes or times find writes.
    if (digits.isEmpty() || digits.size() > 18)
        return std::nullopt;
    qint64 value = 0;
    for (char c : digits) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return value;
}

} // namespace

std::optional<qint64> parseFindTime(QByteArrayView text)
{
    const qsizetype dot = text.indexOf('.');
    const auto seconds = parseDigits(dot < 0 ? text : text.first(dot));
    if (!seconds || *seconds > 9'000'000'000LL) // past year 2255: not a time find writes
        return std::nullopt;
    qint64 ns = 0;
    if (dot >= 0) {
        QByteArrayView fraction = text.sliced(dot + 1);
        if (fraction.size() > 9)
            fraction = fraction.first(9);
        auto digits = parseDigits(fraction);
        if (!digits && !fraction.isEmpty())
            return std::nullopt;
        ns = digits.value_or(0);
        for (qsizetype i = fraction.size(); i < 9; ++i)
            ns *= 10;
    }
    return *seconds * 1'000'000'000LL + ns;
}

std::optional<ScanEntry> parseScanRecord(QByteArrayView record)
{
    const qsizetype tab = record.lastIndexOf('\t');
    if (tab <= 0 || record.front() != '/')
        return std::nullopt;
    const QList<QByteArray> fields = record.sliced(tab + 1).toByteArray().split(' ');
    if (fields.size() != 3 || fields[0].size() != 1 || !QByteArrayView("fdlpsbcD").contains(fields[0][0]))
        return std::nullopt;
    const auto size = parseDigits(fields[1]);
    const auto mtime = parseFindTime(fields[2]);
    if (!size || !mtime)
        return std::nullopt;
    return ScanEntry{record.first(tab).toByteArray(), fields[0][0], *size, *mtime};
}

} // namespace sbw
