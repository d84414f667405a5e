#pragma once

#include "action/InputFile.h"
#include "base/Expected.h"
#include "mcp/McpResources.h"
#include "run/RunArtifacts.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace sbw::mcp {

/// How much run_code takes in: at most kMaxInputFiles files and kMaxInputBytes (decoded) bytes
/// together, since they arrive in one JSON message.
constexpr int kMaxInputFiles = 100;
constexpr qint64 kMaxInputBytes = qint64(16) << 20;

/// How much of a run's artifacts run_code returns inline as content blocks: files of at most
/// kMaxInlineFileBytes each, in name order, while all inline files together stay within
/// kMaxInlineBytes. Every artifact is listed in structuredContent either way.
constexpr qint64 kMaxInlineFileBytes = qint64(1) << 20;
constexpr qint64 kMaxInlineBytes = qint64(4) << 20;

/// JSON Schema of run_code's `files` argument: an array of {path, content_base64} or
/// {path, text} objects.
QJsonObject runInputFilesSchema();

/// Reads run_code's `files` argument. Missing or null: no files. Otherwise an array of objects,
/// each with `path` (a plain file name, see checkInputFileName(); no control characters, at
/// most 255 bytes of UTF-8) and exactly one of `content_base64` (the bytes, base64; whitespace
/// is ignored) and `text` (the bytes, UTF-8). Names must differ; at most kMaxInputFiles files
/// and kMaxInputBytes bytes together. Errors are sentences naming the entry, e.g. "files[1]
/// needs content_base64 or text", "files[0].content_base64 is not valid base64", "input file
/// ../x must be a plain file name (no folders, no . or ..)", "files[0] and files[2] are both
/// named data.csv; give each file its own name", "the input files hold more than
/// run_code takes: up to 16.0 MiB (16777216 bytes) together".
Expected<QList<InputFile>> parseRunInputFiles(const QJsonValue& files);

/// Writes `files` into the existing host folder `folder` under their names and returns their
/// paths, for RunOptions::inputFiles. Error: "cannot stage input file NAME on the host: REASON".
Expected<QStringList> stageRunInputFiles(const QList<InputFile>& files, const QString& folder);

/// JSON Schema of one entry of run_code's `artifacts` result.
QJsonObject runArtifactSchema();

/// The URI of artifact `name` (below out/, '/'-separated) of the run in microVM `run`:
/// "sbw://runs/RUN/out/NAME", each segment of NAME percent-encoded (RFC 3986). Unique per run,
/// so resources/read finds the file after the microVM is gone.
QString runArtifactUri(const QString& run, const QString& name);

/// What run_code returns about a run's artifacts.
struct RunArtifactsResult
{
    /// One object per artifact, in name order: `path` ("out/NAME", relative to the working
    /// folder), `size_bytes`, `sha256` (lower-case hex; empty when the host copy cannot be
    /// read), `mime_type` (from the name and the first bytes, e.g. "image/png", "text/csv",
    /// "application/octet-stream"), `inline` (whether a content block carries it) and `uri`
    /// (runArtifactUri(), for resources/read).
    QJsonArray list;
    /// Content blocks (MCP 2025-06-18) of the inline artifacts, in the same order: PNG, JPEG,
    /// GIF and WebP images as `image` blocks (base64 `data`, `mimeType`); every other file as an
    /// embedded `resource` with its `uri`, `mimeType` and `text` when it is valid UTF-8, else
    /// base64 `blob`.
    QJsonArray content;
    /// Every artifact, for the server's resources/list and resources/read.
    QList<McpResource> resources;
};

/// Describes `artifacts` (host copies, RunResult::artifacts) of the run in microVM `run`
/// (RunResult::domainName) for run_code's result. Reads the files: call on a worker thread.
RunArtifactsResult runArtifactsResult(const QList<RunArtifact>& artifacts, const QString& run);

} // namespace sbw::mcp
