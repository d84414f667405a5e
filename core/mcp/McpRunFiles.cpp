#include "mcp/McpRunFiles.h"

#include "base/GuestTextDecoder.h"
#include "mcp/McpToolSchema.h"
#include "run/RunInputFiles.h"

#include <QCryptographicHash>
#include <QFile>
#include <QHash>
#include <QMimeDatabase>
#include <QUrl>

#include <algorithm>
#include <optional>

namespace sbw::mcp {
namespace {

/// Image types that MCP clients show as images; other files are embedded resources.
const QStringList kImageTypes{QStringLiteral("image/png"), QStringLiteral("image/jpeg"), QStringLiteral("image/gif"),
                              QStringLiteral("image/webp")};

constexpr int kMaxNameBytes = 255; // NAME_MAX of the guest's ext4

bool hasControlCharacters(const QString& name)
{
    return std::any_of(name.cbegin(), name.cend(), [](QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; });
}

std::optional<QByteArray> decodeBase64(const QString& text)
{
    QByteArray compact = text.toLatin1();
    compact.removeIf([](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
    auto decoded = QByteArray::fromBase64Encoding(compact, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return *decoded;
}

Expected<InputFile> parseEntry(const QJsonValue& value, int index)
{
    const QString entry = QStringLiteral("files[%1]").arg(index);
    if (!value.isObject())
        return makeError(QStringLiteral("%1 must be an object with path and content_base64 or text").arg(entry));
    const QJsonObject object = value.toObject();
    const QJsonValue path = object.value(QLatin1String("path"));
    if (path.isUndefined() || path.isNull())
        return makeError(QStringLiteral("%1.path is required").arg(entry));
    if (!path.isString())
        return makeError(QStringLiteral("%1.path must be a string").arg(entry));
    InputFile file;
    file.name = path.toString();
    if (file.name.isEmpty())
        return makeError(QStringLiteral("%1.path must not be empty").arg(entry));
    const QString label = QStringLiteral("input file %1").arg(file.name);
    if (hasControlCharacters(file.name))
        return makeError(QStringLiteral("%1.path must not contain control characters").arg(entry));
    if (auto valid = checkInputFileName(label, file.name); !valid)
        return valid.error();
    if (file.name.toUtf8().size() > kMaxNameBytes)
        return makeError(QStringLiteral("%1.path is longer than %2 bytes").arg(entry).arg(kMaxNameBytes));

    const QJsonValue base64 = object.value(QLatin1String("content_base64"));
    const QJsonValue text = object.value(QLatin1String("text"));
    const bool hasBase64 = !base64.isUndefined() && !base64.isNull();
    const bool hasText = !text.isUndefined() && !text.isNull();
    if (hasBase64 == hasText)
        return makeError(hasBase64 ? QStringLiteral("%1 has both content_base64 and text; give one").arg(entry)
                                   : QStringLiteral("%1 needs content_base64 or text").arg(entry));
    if (hasText) {
        if (!text.isString())
            return makeError(QStringLiteral("%1.text must be a string").arg(entry));
        file.content = text.toString().toUtf8();
        file.size = file.content.size();
        return file;
    }
    if (!base64.isString())
        return makeError(QStringLiteral("%1.content_base64 must be a string").arg(entry));
    auto decoded = decodeBase64(base64.toString());
    if (!decoded)
        return makeError(QStringLiteral("%1.content_base64 is not valid base64").arg(entry));
    file.content = std::move(*decoded);
    file.size = file.content.size();
    return file;
}

} // namespace

QJsonObject runInputFilesSchema()
{
    const QJsonObject entry = objectSchema(
        {{QStringLiteral("path"), stringSchema(QStringLiteral(
                                      "File name in the working folder /root/run: one plain name, no folders; not "
                                      "main.py, main.sh or out."))},
         {QStringLiteral("content_base64"), stringSchema(QStringLiteral("The file's bytes, base64. Give this or text."))},
         {QStringLiteral("text"), stringSchema(QStringLiteral("The file's content as text, written as UTF-8. Give this or content_base64."))}},
        {QStringLiteral("path")});
    return {{QStringLiteral("type"), QStringLiteral("array")},
            {QStringLiteral("items"), entry},
            {QStringLiteral("maxItems"), kMaxInputFiles},
            {QStringLiteral("description"),
             QStringLiteral("Input files placed in /root/run before the script starts; up to %1 files and 16 MiB together.")
                 .arg(kMaxInputFiles)}};
}

Expected<QList<InputFile>> parseRunInputFiles(const QJsonValue& files)
{
    if (files.isUndefined() || files.isNull())
        return QList<InputFile>();
    if (!files.isArray())
        return makeError(QStringLiteral("files must be an array of {path, content_base64} or {path, text} objects"));
    const QJsonArray array = files.toArray();
    if (array.size() > kMaxInputFiles)
        return makeError(QStringLiteral("files has %1 entries; run_code takes up to %2 files")
                             .arg(array.size())
                             .arg(kMaxInputFiles));
    QList<InputFile> parsed;
    QHash<QString, int> indexOfName;
    qint64 total = 0;
    for (int i = 0; i < array.size(); ++i) {
        auto file = parseEntry(array.at(i), i);
        if (!file)
            return file.error();
        if (auto other = indexOfName.constFind(file->name); other != indexOfName.cend())
            return makeError(QStringLiteral("files[%1] and files[%2] are both named %3; give each file its own name")
                                 .arg(other.value())
                                 .arg(i)
                                 .arg(file->name));
        indexOfName.insert(file->name, i);
        total += file->content.size();
        if (total > kMaxInputBytes)
            return makeError(QStringLiteral("the input files hold more than run_code takes: up to %1 (%2 bytes) together")
                                 .arg(byteSizeText(kMaxInputBytes))
                                 .arg(kMaxInputBytes));
        parsed.append(std::move(file.value()));
    }
    return parsed;
}

Expected<QStringList> stageRunInputFiles(const QList<InputFile>& files, const QString& folder)
{
    QStringList paths;
    for (const InputFile& file : files) {
        const QString path = folder + QLatin1Char('/') + file.name;
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly) || out.write(file.content) != file.content.size() || !out.flush())
            return makeError(QStringLiteral("cannot stage input file %1 on the host: %2").arg(file.name, out.errorString()));
        paths << path;
    }
    return paths;
}

QJsonObject runArtifactSchema()
{
    return objectSchema(
        {{QStringLiteral("path"), stringSchema(QStringLiteral("out/NAME: where the script wrote it, relative to /root/run."))},
         {QStringLiteral("size_bytes"), integerSchema(QStringLiteral("Size in bytes."), 0)},
         {QStringLiteral("sha256"), stringSchema(QStringLiteral("SHA-256 of the bytes, lower-case hex."))},
         {QStringLiteral("mime_type"), stringSchema(QStringLiteral("MIME type from the name and content, e.g. image/png, text/csv."))},
         {QStringLiteral("inline"), booleanSchema(QStringLiteral(
                                        "Whether a content block of this result carries the file (files up to 1 MiB, "
                                        "4 MiB together, in name order)."))},
         {QStringLiteral("uri"), stringSchema(QStringLiteral(
                                     "sbw://runs/RUN/out/NAME: read it with resources/read (files up to 16 MiB) "
                                     "while this server runs."))}},
        {QStringLiteral("path"), QStringLiteral("size_bytes"), QStringLiteral("sha256"), QStringLiteral("mime_type"),
         QStringLiteral("inline"), QStringLiteral("uri")});
}

QString runArtifactUri(const QString& run, const QString& name)
{
    QStringList segments;
    for (const QString& segment : name.split(QLatin1Char('/')))
        segments << QString::fromLatin1(QUrl::toPercentEncoding(segment));
    return QStringLiteral("sbw://runs/%1/out/%2").arg(QString::fromLatin1(QUrl::toPercentEncoding(run)),
                                                       segments.join(QLatin1Char('/')));
}

RunArtifactsResult runArtifactsResult(const QList<RunArtifact>& artifacts, const QString& run)
{
    RunArtifactsResult result;
    const QMimeDatabase mimeTypes;
    qint64 inlineBytes = 0;
    for (const RunArtifact& artifact : artifacts) {
        QFile file(artifact.hostPath);
        const bool readable = file.open(QIODevice::ReadOnly);
        const bool small = artifact.size <= kMaxInlineFileBytes && inlineBytes + artifact.size <= kMaxInlineBytes;
        QByteArray bytes; // the whole file when it goes inline
        QByteArray head;  // what the MIME type is guessed from, with the name
        QCryptographicHash sha256(QCryptographicHash::Sha256);
        if (readable && small) {
            bytes = file.readAll();
            head = bytes;
            sha256.addData(bytes);
        } else if (readable) {
            head = file.peek(4096);
            sha256.addData(&file);
        }
        const bool hashed = readable && file.error() == QFileDevice::NoError;
        const bool isInline = hashed && small;
        const QString mimeType = mimeTypes.mimeTypeForFileNameAndData(artifact.name, head).name();
        const QString uri = runArtifactUri(run, artifact.name);
        result.list.append(QJsonObject{
            {QStringLiteral("path"), QStringLiteral("out/") + artifact.name},
            {QStringLiteral("size_bytes"), artifact.size},
            {QStringLiteral("sha256"), hashed ? QString::fromLatin1(sha256.result().toHex()) : QString()},
            {QStringLiteral("mime_type"), mimeType},
            {QStringLiteral("inline"), isInline},
            {QStringLiteral("uri"), uri}});
        result.resources.append({uri, QStringLiteral("out/") + artifact.name,
                                 QStringLiteral("written by run_code in the microVM %1").arg(run), mimeType,
                                 artifact.size, artifact.hostPath});
        if (!isInline)
            continue;
        inlineBytes += bytes.size();
        if (kImageTypes.contains(mimeType)) {
            result.content.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("image")},
                                              {QStringLiteral("data"), QString::fromLatin1(bytes.toBase64())},
                                              {QStringLiteral("mimeType"), mimeType}});
            continue;
        }
        QJsonObject resource{{QStringLiteral("uri"), uri}, {QStringLiteral("mimeType"), mimeType}};
        if (isValidUtf8(bytes))
            resource.insert(QStringLiteral("text"), QString::fromUtf8(bytes));
        else
            resource.insert(QStringLiteral("blob"), QString::fromLatin1(bytes.toBase64()));
        result.content.append(
            QJsonObject{{QStringLiteral("type"), QStringLiteral("resource")}, {QStringLiteral("resource"), resource}});
    }
    return result;
}

} // namespace sbw::mcp
