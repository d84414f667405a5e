#include "workspace/WorkspaceCheckpoint.h"
#include "workspace/WorkspaceStop.h"

#include <QTest>

namespace {

/// A snapshot description as virDomainSnapshotGetXMLDesc() gives it (trimmed).
QString snapshotXml(const QString& name, const QString& parent, qint64 created)
{
    const QString parentXml = parent.isEmpty()
                                  ? QString()
                                  : QStringLiteral("<parent><name>%1</name></parent>").arg(parent);
    return QStringLiteral("<domainsnapshot><name>%1</name><state>running</state>%2"
                          "<creationTime>%3</creationTime><memory snapshot='internal'/>"
                          "<domain type='qemu'><name>sbw-ws-x</name></domain></domainsnapshot>")
        .arg(name, parentXml)
        .arg(created);
}

/// The timeline of (name, parent, creationTime) triples, given in this order.
QStringList timeline(const QList<std::tuple<QString, QString, qint64>>& snapshots)
{
    QList<sbw::CheckpointInfo> list;
    for (const auto& [name, parent, created] : snapshots) {
        auto info = sbw::checkpointFromSnapshotXml(snapshotXml(name, parent, created));
        if (!info)
            qFatal("%s", qPrintable(info.error().message));
        list << info.value();
    }
    sbw::orderTimeline(list);
    QStringList names;
    for (const auto& info : list)
        names << info.name;
    return names;
}

const qint64 kSecond = 1795956604;

} // namespace

class TestCheckpointTimeline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameSecondFollowsTheParentChain()
    {
        // Three checkpoints within one second: creationTime cannot tell them apart, and names
        // sort the other way round. libvirt lists snapshots in no particular order.
        const QStringList expected{QStringLiteral("z-first"), QStringLiteral("m-second"),
                                   QStringLiteral("a-third")};
        QCOMPARE(timeline({{"a-third", "m-second", kSecond},
                           {"z-first", "", kSecond},
                           {"m-second", "z-first", kSecond}}),
                 expected);
        QCOMPARE(timeline({{"m-second", "z-first", kSecond},
                           {"a-third", "m-second", kSecond},
                           {"z-first", "", kSecond}}),
                 expected);
    }

    void chainWinsOverClocks()
    {
        // A host clock set back between two checkpoints: the child still comes after its parent.
        QCOMPARE(timeline({{"B", "A", kSecond - 60}, {"A", "", kSecond}}),
                 (QStringList{QStringLiteral("A"), QStringLiteral("B")}));
    }

    void branchesAreWalkedWhole()
    {
        // A, B, C on one line; revert to A, then D and E on a second line (all in one second but
        // D after C by clock in the second case). Each line is listed whole, in creation order.
        const QStringList expected{"A", "B", "C", "D", "E"};
        QCOMPARE(timeline({{"E", "D", kSecond},
                           {"C", "B", kSecond},
                           {"D", "A", kSecond},
                           {"B", "A", kSecond},
                           {"A", "", kSecond}}),
                 (QStringList{"A", "B", "C", "D", "E"}));
        QCOMPARE(timeline({{"D", "A", kSecond + 2},
                           {"B", "A", kSecond + 1},
                           {"A", "", kSecond},
                           {"E", "D", kSecond + 2},
                           {"C", "B", kSecond + 1}}),
                 expected);
        // The later branch's checkpoints come after the earlier one's even when the earlier
        // line grew later: siblings are ordered by their own creation time.
        QCOMPARE(timeline({{"A", "", kSecond},
                           {"B", "A", kSecond + 1},
                           {"C", "A", kSecond + 2},
                           {"B2", "B", kSecond + 3}}),
                 (QStringList{"A", "B", "B2", "C"}));
    }

    void orphansAndCyclesAreKept()
    {
        // A deleted root leaves its children without a parent: each starts a line. A cycle
        // (never made by libvirt) still lists every checkpoint once.
        QCOMPARE(
            timeline({{"Y", "gone", kSecond + 5}, {"X", "gone", kSecond}, {"X1", "X", kSecond}}),
            (QStringList{"X", "X1", "Y"}));
        QCOMPARE(timeline({{"P", "Q", kSecond}, {"Q", "P", kSecond}}).size(), 2);
    }

    void laterCheckpointsAreTheDescendants()
    {
        QList<sbw::CheckpointInfo> list;
        for (const auto& [name, parent] : QList<std::pair<QString, QString>>{
                 {"A", ""}, {"B", "A"}, {"C", "B"}, {"D", "A"}, {"E", "D"}}) {
            sbw::CheckpointInfo info;
            info.name = name;
            info.parent = parent;
            info.created = QDateTime::fromSecsSinceEpoch(kSecond);
            list << info;
        }
        sbw::orderTimeline(list);
        QCOMPARE(sbw::descendantCount(list, QStringLiteral("A")), 4);
        QCOMPARE(sbw::descendantCount(list, QStringLiteral("B")), 1); // C, not D or E
        QCOMPARE(sbw::descendantCount(list, QStringLiteral("C")), 0);
        QCOMPARE(sbw::descendantCount(list, QStringLiteral("D")), 1);
        QCOMPARE(sbw::descendantCount(list, QStringLiteral("nope")), 0);
    }

    void stopSummaries()
    {
        sbw::StopOutcome clean;
        clean.request = sbw::StopRequest::Ssh;
        clean.synced = true;
        clean.elapsedMs = 3449;
        clean.graceSeconds = 30;
        QCOMPARE(clean.summary(),
                 QStringLiteral("shut down cleanly in 3.4 s (asked over SSH after a sync)"));
        clean.request = sbw::StopRequest::GuestAgent;
        clean.synced = false;
        QCOMPARE(clean.summary(),
                 QStringLiteral("shut down cleanly in 3.4 s (asked through its guest agent)"));

        clean.request.reset();
        QCOMPARE(clean.summary(),
                 QStringLiteral("shut down cleanly in 3.4 s (it powered off before it was asked)"));

        sbw::StopOutcome forced;
        forced.forced = true;
        forced.graceSeconds = 30;
        forced.elapsedMs = 30112;
        forced.request = sbw::StopRequest::GuestAgent;
        QCOMPARE(
            forced.summary(),
            QStringLiteral("forced off after 30 s: the guest did not shut down; writes it had not "
                           "flushed may be lost (asked through its guest agent)"));
        forced.request.reset();
        forced.unasked =
            QStringLiteral("SSH: the guest of workspace 'x' did not become ready in time");
        QCOMPARE(
            forced.summary(),
            QStringLiteral("forced off after 30 s: the guest did not shut down; writes it had not "
                           "flushed may be lost (it could not be asked: SSH: the guest of "
                           "workspace 'x' did not become ready in time)"));
        forced.request = sbw::StopRequest::Ssh;
        forced.synced = true;
        QCOMPARE(forced.summary(),
                 QStringLiteral("forced off after 30 s: the guest did not shut down; writes made "
                                "after its sync may be lost (asked over SSH after a sync)"));

        sbw::StopOutcome unplugged; // --grace 0
        unplugged.forced = true;
        QCOMPARE(unplugged.summary(),
                 QStringLiteral("forced off at once (grace 0 s): the guest was not asked to shut "
                                "down; writes it had not flushed may be lost"));
    }
};

QTEST_GUILESS_MAIN(TestCheckpointTimeline)
#include "tst_checkpointtimeline.moc"
