#include "workspace/WorkspaceCheckpoint.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QTimeZone>
#include <QXmlStreamReader>
#include <QXmlStreamWriter>
#include <algorithm>

namespace sbw {
namespace {

QString durationText(qint64 seconds)
{
    if (seconds < 60)
        return QStringLiteral("%1 s").arg(seconds);
    if (seconds < 3600)
        return QStringLiteral("%1 min").arg(seconds / 60);
    if (seconds < 2 * 86400)
        return QStringLiteral("%1 h %2 min").arg(seconds / 3600).arg(seconds % 3600 / 60);
    return QStringLiteral("%1 days").arg(seconds / 86400);
}

} // namespace

Expected<void> validateCheckpointName(const QString& name)
{
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z0-9._-]{1,64}$"));
    if (!valid.match(name).hasMatch())
        return makeError(QStringLiteral("'%1' is not a checkpoint name: use 1 to 64 of A-Z, a-z, "
                                        "0-9, '.', '_' and '-'")
                             .arg(name));
    return {};
}

QJsonObject CheckpointInfo::toJson() const
{
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("note"), note},
        {QStringLiteral("created"), created.toUTC().toString(Qt::ISODate)},
        {QStringLiteral("guest_state"), guestState},
        {QStringLiteral("parent"), parent},
        {QStringLiteral("current"), current},
    };
}

QString checkpointSnapshotXml(const QString& name, const QString& note)
{
    QString out;
    QXmlStreamWriter xml(&out);
    xml.writeStartElement(QStringLiteral("domainsnapshot"));
    xml.writeTextElement(QStringLiteral("name"), name);
    xml.writeTextElement(QStringLiteral("description"), note);
    xml.writeEndElement();
    return out;
}

Expected<CheckpointInfo> checkpointFromSnapshotXml(const QString& xml)
{
    CheckpointInfo info;
    QXmlStreamReader reader(xml);
    if (!reader.readNextStartElement() || reader.name() != QLatin1String("domainsnapshot"))
        return makeError(QStringLiteral("not a libvirt snapshot description"));
    while (reader.readNextStartElement()) {
        const auto name = reader.name();
        if (name == QLatin1String("name")) {
            info.name = reader.readElementText();
        } else if (name == QLatin1String("description")) {
            info.note = reader.readElementText();
        } else if (name == QLatin1String("state")) {
            info.guestState = reader.readElementText();
        } else if (name == QLatin1String("creationTime")) {
            info.created = QDateTime::fromSecsSinceEpoch(reader.readElementText().toLongLong(),
                                                         QTimeZone::utc());
        } else if (name == QLatin1String("parent")) {
            while (reader.readNextStartElement()) {
                if (reader.name() == QLatin1String("name"))
                    info.parent = reader.readElementText();
                else
                    reader.skipCurrentElement();
            }
        } else {
            reader.skipCurrentElement();
        }
    }
    if (reader.hasError())
        return makeError(
            QStringLiteral("snapshot description is not valid XML: %1").arg(reader.errorString()));
    if (info.name.isEmpty())
        return makeError(QStringLiteral("snapshot description without a name"));
    return info;
}

void orderTimeline(QList<CheckpointInfo>& checkpoints)
{
    auto earlier = [](const CheckpointInfo& a, const CheckpointInfo& b) {
        return a.created != b.created ? a.created < b.created : a.name < b.name;
    };
    std::sort(checkpoints.begin(), checkpoints.end(), earlier);
    QHash<QString, qsizetype> index;
    for (qsizetype i = 0; i < checkpoints.size(); ++i)
        index.insert(checkpoints[i].name, i);
    // children[i]: positions of i's children, in creation order (the list is sorted).
    QList<QList<qsizetype>> children(checkpoints.size());
    QList<qsizetype> roots;
    for (qsizetype i = 0; i < checkpoints.size(); ++i) {
        const auto parent = index.constFind(checkpoints[i].parent);
        if (parent != index.constEnd() && *parent != i)
            children[*parent] << i;
        else
            roots << i;
    }
    QList<CheckpointInfo> ordered;
    QList<bool> placed(checkpoints.size(), false);
    // Depth first without recursion: a chain of thousands of checkpoints is a deep tree.
    auto walk = [&](qsizetype root) {
        QList<qsizetype> stack{root};
        while (!stack.isEmpty()) {
            const qsizetype i = stack.takeLast();
            if (placed[i])
                continue;
            placed[i] = true;
            ordered << checkpoints[i];
            for (auto child = children[i].crbegin(); child != children[i].crend(); ++child)
                stack << *child;
        }
    };
    for (qsizetype root : roots)
        walk(root);
    // A parent cycle has no root; libvirt never makes one, but the list keeps every entry.
    for (qsizetype i = 0; i < checkpoints.size(); ++i)
        walk(i);
    checkpoints = ordered;
}

qsizetype descendantCount(const QList<CheckpointInfo>& timeline, const QString& name)
{
    // The timeline puts parents before children, so one pass finds every descendant.
    QSet<QString> line;
    for (const CheckpointInfo& info : timeline) {
        if (info.name == name || line.contains(info.parent))
            line.insert(info.name);
    }
    return line.isEmpty() ? 0 : line.size() - 1;
}

QString RevertImpact::describe() const
{
    QString text =
        QStringLiteral("Reverting to '%1' discards every change to disk%2 made since %3 "
                       "(%4 ago).")
            .arg(checkpoint, guestRunning ? QStringLiteral(" and memory") : QString(),
                 checkpointCreated.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")),
                 durationText(secondsLost));
    if (laterCheckpoints == 1)
        text += QStringLiteral(" 1 later checkpoint is kept.");
    else if (laterCheckpoints > 1)
        text += QStringLiteral(" %1 later checkpoints are kept.").arg(laterCheckpoints);
    return text;
}

} // namespace sbw
