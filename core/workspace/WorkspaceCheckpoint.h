#pragma once

#include "base/Expected.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace sbw {

/// One checkpoint of a workspace: a libvirt internal snapshot (disk and memory, kept inside the
/// workspace's qcow2 overlay; see ARCHITECTURE.md for why).
struct CheckpointInfo
{
    QString name;
    QString note;         ///< the snapshot's <description>
    QDateTime created;    ///< UTC, libvirt's <creationTime> (whole seconds)
    QString guestState;   ///< libvirt's <state> at creation: "running" or "paused"
    QString parent;       ///< name of the checkpoint it was taken after; empty for the first
    bool current = false; ///< the checkpoint the workspace last reverted to or took

    QJsonObject toJson() const;
};

/// A checkpoint name is 1 to 64 of A-Z, a-z, 0-9, '.', '_' and '-' (it names a libvirt
/// snapshot and appears in commands). The error says what is allowed.
Expected<void> validateCheckpointName(const QString& name);

/// The description virDomainSnapshotCreateXML() takes for checkpoint `name` with `note`:
/// `<domainsnapshot><name>…</name><description>…</description></domainsnapshot>` (disk and
/// memory, internal: libvirt's default for a running or paused domain on qcow2).
QString checkpointSnapshotXml(const QString& name, const QString& note);

/// Parses virDomainSnapshotGetXMLDesc() output (top-level <name>, <description>, <state>,
/// <creationTime>, <parent><name>). `current` is left false. Errors: not XML, no name.
Expected<CheckpointInfo> checkpointFromSnapshotXml(const QString& xml);

/// The checkpoints as a timeline, by libvirt's snapshot parent chain (<parent><name>): every
/// checkpoint comes after its parent. creationTime has whole seconds, so two checkpoints taken
/// in one second are told apart by the chain alone. Branches (a revert to A, then a new
/// checkpoint C beside A's older child B) are walked depth first: each branch whole, siblings
/// in creation order (then by name), so the timeline reads A, B, C and C's line starts again
/// at A. Checkpoints whose parent is gone (deleted roots re-parent their children to none)
/// start lines of their own, in creation order.
void orderTimeline(QList<CheckpointInfo>& checkpoints);

/// How many checkpoints were taken after `name` on its line: its descendants in the parent
/// chain, counted in a timeline from orderTimeline(). 0 when `name` is not in it.
qsizetype descendantCount(const QList<CheckpointInfo>& timeline, const QString& name);

/// What reverting to a checkpoint throws away, for a confirmation question.
struct RevertImpact
{
    QString checkpoint;
    QDateTime checkpointCreated; ///< UTC
    qint64 secondsLost = 0;      ///< work since the checkpoint: now − checkpointCreated
    bool guestRunning = false;   ///< the workspace runs (or is paused) now: its memory goes too
    int laterCheckpoints = 0;    ///< checkpoints taken after it on its line (its descendants); kept

    /// "Reverting to 'A' discards every change to disk and memory made since 2026-11-29 12:50 UTC
    /// (5 min ago). 1 later checkpoint is kept." (memory mentioned only when guestRunning)
    QString describe() const;
};

} // namespace sbw
