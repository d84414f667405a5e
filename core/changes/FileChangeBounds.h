#pragma once

#include <QtGlobal>

namespace sbw::file_change_bounds {

/// Entries one scan of the watched folders reads. A scan costs 25-35 µs per entry under TCG
/// (70 ms for 2,006 entries, 384 ms for 15,007; tests/bench/bench_file_changes), twice per
/// command: 20,000 entries bound the added time to about 0.5 s per scan. Past it the scan stops
/// early and the row says the changes are unknown, because a cut-off listing would report
/// files as created or deleted that were not.
inline constexpr qint64 kMaxScanEntries = 20'000;
/// Files one row lists with their sizes; the rest is counted ("1,204 more files changed").
/// A person reads a list, not a dump: `npm install` changes thousands of files.
inline constexpr int kMaxListedFiles = 200;
/// Text files up to this size get a diff, and are kept in the guest's shadow copy (the
/// content before the next command); larger files are listed with their sizes only.
inline constexpr qint64 kMaxDiffFileBytes = 64 * 1024;
/// Files per row that get a diff: each costs a copy in the guest, its bytes over SSH and a
/// `diff` on the host.
inline constexpr int kMaxDiffFiles = 20;
/// Disk the shadow copy of one set of watched folders may use in the guest (KiB); past it no
/// new files are kept, and their diffs say the content before was not kept.
inline constexpr qint64 kShadowBudgetKiB = 32 * 1024;
/// Files added to the shadow copy after one command: bounds the first copy of a large tree.
inline constexpr int kMaxShadowFilesPerCommand = 2'000;
/// How long a command waits, in 50 ms ticks, for the shadow copy's refresh that the command
/// before started in the background (it holds the content this command's diffs need). A
/// refresh copies only the files changed since the last one, usually done before the next
/// command arrives; the wait only bounds the case of two commands back to back.
inline constexpr int kMaxRefreshWaitTicks = 20;

} // namespace sbw::file_change_bounds
