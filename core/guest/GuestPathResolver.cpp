#include "guest/GuestPathResolver.h"

#include "guest/GuestSession.h"

#include <QStringList>

namespace sbw {
namespace {

/// PATH_MAX of Linux, with room for realpath's terminating NUL.
constexpr qsizetype kMaxAnswerBytes = 4097;

QByteArray shellQuoted(const QByteArray& word)
{
    QByteArray quoted = word;
    quoted.replace('\'', "'\\''");
    return '\'' + quoted + '\'';
}

} // namespace

Expected<QString> normalisedGuestPath(const QString& path)
{
    if (!path.startsWith(QLatin1Char('/')))
        return makeError(
            QStringLiteral("%1 is not an absolute guest path (starting with /)").arg(path));
    if (path.contains(QChar(0)))
        return makeError(QStringLiteral("a guest path cannot hold a NUL character"));
    QStringList parts;
    for (const QString& part : path.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        if (part == QLatin1String("."))
            continue;
        if (part == QLatin1String("..")) {
            if (!parts.isEmpty())
                parts.removeLast();
            continue;
        }
        parts << part;
    }
    return QLatin1Char('/') + parts.join(QLatin1Char('/'));
}

Expected<QString> resolveGuestPath(GuestSession& session, const QString& path)
{
    if (auto valid = normalisedGuestPath(path); !valid)
        return valid.error();
    QByteArray out;
    QByteArray err;
    ExecRequest request;
    request.command = "exec realpath -m -z -- " + shellQuoted(path.toUtf8());
    request.timeout = std::chrono::seconds(30);
    request.onStdout = [&](QByteArrayView bytes) {
        if (out.size() < kMaxAnswerBytes + 1)
            out.append(
                bytes.first(std::min<qsizetype>(bytes.size(), kMaxAnswerBytes + 1 - out.size())));
    };
    request.onStderr = [&](QByteArrayView bytes) {
        if (err.size() < 1024)
            err.append(bytes.first(std::min<qsizetype>(bytes.size(), 1024 - err.size())));
    };
    auto status = session.exec(request);
    const QString failed = QStringLiteral("cannot resolve %1 in the guest: ").arg(path);
    if (!status)
        return makeError(failed + status.error().message);
    if (status->exitStatus.value_or(-1) != 0) {
        const QString why = QString::fromUtf8(err).trimmed();
        return makeError(failed + (why.isEmpty() ? QStringLiteral("realpath failed") : why));
    }
    if (out.size() > kMaxAnswerBytes || !out.endsWith('\0'))
        return makeError(failed + QStringLiteral("the guest's answer is not one path"));
    out.chop(1);
    const QString resolved = QString::fromUtf8(out);
    const auto normal = normalisedGuestPath(resolved);
    if (out.contains('\0') || !normal || normal.value() != resolved || resolved.toUtf8() != out)
        return makeError(failed +
                         QStringLiteral("the guest's answer is not a normalised absolute path"));
    return resolved;
}

} // namespace sbw
