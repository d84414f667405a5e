#include "widgets/CsvTableModel.h"

#include "base/GuestTextDecoder.h"
#include "base/VisibleText.h"

namespace sbw {

QList<QStringList> parseCsv(const QByteArray& bytes, qsizetype maxRows, bool* truncated)
{
    GuestTextDecoder decoder;
    QString text = decoder.decode(bytes);
    text += decoder.finish();
    if (text.startsWith(QChar(0xFEFF)))
        text.remove(0, 1);

    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;     // inside a quoted field
    bool fieldStarted = false;
    if (truncated)
        *truncated = false;
    const auto endRow = [&] {
        row << field;
        rows << row;
        row.clear();
        field.clear();
        fieldStarted = false;
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (i + 1 < text.size() && text.at(i + 1) == QLatin1Char('"')) {
                    field += QLatin1Char('"');
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
            continue;
        }
        if (c == QLatin1Char('"') && !fieldStarted) {
            quoted = true;
            fieldStarted = true;
        } else if (c == QLatin1Char(',')) {
            row << field;
            field.clear();
            fieldStarted = false;
        } else if (c == QLatin1Char('\n') || c == QLatin1Char('\r')) {
            if (c == QLatin1Char('\r') && i + 1 < text.size() && text.at(i + 1) == QLatin1Char('\n'))
                ++i;
            if (rows.size() == maxRows) {
                if (truncated)
                    *truncated = true;
                return rows;
            }
            endRow();
        } else {
            field += c; // also a stray quote inside an unquoted field, kept as it is
            fieldStarted = true;
        }
    }
    if (fieldStarted || !field.isEmpty() || !row.isEmpty()) {
        if (rows.size() == maxRows) {
            if (truncated)
                *truncated = true;
            return rows;
        }
        endRow();
    }
    return rows;
}

CsvTableModel::CsvTableModel(const QByteArray& csv, QObject* parent) : QAbstractTableModel(parent)
{
    QList<QStringList> rows = parseCsv(csv, kMaxRows + 1, &m_truncated);
    if (!rows.isEmpty())
        m_header = rows.takeFirst();
    m_rows = std::move(rows);
    m_columns = int(m_header.size());
    for (const QStringList& row : m_rows)
        m_columns = std::max(m_columns, int(row.size()));
}

int CsvTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CsvTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_columns;
}

QVariant CsvTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    return makeVisible(m_rows.at(index.row()).value(index.column()));
}

QVariant CsvTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || section < 0)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    return makeVisible(m_header.value(section));
}

} // namespace sbw
