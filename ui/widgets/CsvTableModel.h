#pragma once

#include <QAbstractTableModel>
#include <QByteArray>
#include <QList>
#include <QStringList>

namespace sbw {

/// CSV bytes (RFC 4180: comma-separated fields, fields in double quotes may hold commas, line
/// breaks and doubled quotes; CRLF or LF line ends; a UTF-8 byte order mark is skipped) as
/// rows of fields. At most `maxRows` rows are parsed; `truncated`, when given, tells whether
/// more followed. Invalid UTF-8 becomes U+FFFD; the text is as in the file (not escaped).
QList<QStringList> parseCsv(const QByteArray& bytes, qsizetype maxRows, bool* truncated = nullptr);

/// A read-only table over CSV bytes for a QTableView: the first row is the header, the other
/// rows are the table's rows (shorter rows are padded with empty cells). Cell text comes from
/// a guest: hidden characters are shown escaped (VisibleText). Holds at most kMaxRows rows.
class CsvTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    static constexpr qsizetype kMaxRows = 10000;

    explicit CsvTableModel(const QByteArray& csv, QObject* parent = nullptr);

    /// True when the file had more than kMaxRows rows after the header.
    bool isTruncated() const { return m_truncated; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QStringList m_header;
    QList<QStringList> m_rows;
    int m_columns = 0;
    bool m_truncated = false;
};

} // namespace sbw
