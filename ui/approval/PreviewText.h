#pragma once

#include <QString>

namespace sbw {

struct PreviewReport;

/// The approval detail's account of a preview: where it ran, its status, output, the files it
/// changed with their diffs, the processes it left running. Guest text is shown literally
/// (makeVisible); output is cut at a few KiB here (the whole is in the fork's log row).
QString previewReportText(const PreviewReport& report);

} // namespace sbw
