#include "mcp/McpHttpAccess.h"

#include "base/DataPaths.h"

#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QUrl>

#include <fcntl.h>
#include <unistd.h>

namespace sbw {

namespace {

bool isLoopbackName(const QString& host)
{
    return host == QLatin1String("localhost") || host == QLatin1String("127.0.0.1") ||
           host == QLatin1String("[::1]") || host == QLatin1String("::1");
}

/// "localhost:8080" → "localhost"; "[::1]:80" → "[::1]". Empty for malformed values.
QString hostName(const QByteArray& hostHeader)
{
    const QString host = QString::fromLatin1(hostHeader).trimmed().toLower();
    if (host.startsWith(QLatin1Char('['))) {
        const qsizetype end = host.indexOf(QLatin1Char(']'));
        if (end < 0)
            return {};
        const QString rest = host.mid(end + 1);
        if (!rest.isEmpty() && !rest.startsWith(QLatin1Char(':')))
            return {};
        return host.left(end + 1);
    }
    const qsizetype colon = host.indexOf(QLatin1Char(':'));
    return colon < 0 ? host : host.left(colon);
}

bool sameBytes(const QByteArray& a, const QByteArray& b)
{
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

} // namespace

std::optional<McpHttpRefusal> checkMcpHttpAccess(const QByteArray& host, const QByteArray& origin,
                                                 const QByteArray& authorization, const QByteArray& token)
{
    if (!isLoopbackName(hostName(host)))
        return McpHttpRefusal{403, "forbidden: the Host header must name localhost or 127.0.0.1"};
    if (!origin.isEmpty()) {
        const QUrl url(QString::fromLatin1(origin));
        const bool web = url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https");
        if (!url.isValid() || !web || !url.path().isEmpty() || !isLoopbackName(url.host().toLower()))
            return McpHttpRefusal{403, "forbidden: requests from a foreign Origin are refused"};
    }
    if (token.isEmpty() || !sameBytes(authorization, "Bearer " + token))
        return McpHttpRefusal{401, "unauthorized: send Authorization: Bearer <token> (the workbench's MCP token)"};
    return std::nullopt;
}

QString defaultMcpTokenPath()
{
    return paths::dataDir() + QStringLiteral("/mcp-token");
}

Expected<QByteArray> loadOrCreateMcpToken(const QString& path)
{
    QFile existing(path);
    if (existing.open(QIODevice::ReadOnly)) {
        const QByteArray token = existing.readAll().trimmed();
        if (token.size() >= 32)
            return token;
        return makeError(
            QStringLiteral("the MCP token file %1 is too short; delete it to make a new one").arg(path));
    }
    if (!paths::ensureDir(QFileInfo(path).absolutePath()))
        return makeError(QStringLiteral("cannot create the folder of %1").arg(path));
    quint32 words[8];
    QRandomGenerator::system()->fillRange(words);
    const QByteArray token = QByteArray(reinterpret_cast<const char*>(words), sizeof words).toHex();
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST) // made by another workbench process just now
            return loadOrCreateMcpToken(path);
        return makeError(QStringLiteral("cannot create the MCP token file %1: %2")
                             .arg(path, QString::fromLocal8Bit(strerror(errno))));
    }
    const QByteArray line = token + '\n';
    const bool written = ::write(fd, line.constData(), size_t(line.size())) == line.size();
    ::close(fd);
    if (!written) {
        QFile::remove(path);
        return makeError(QStringLiteral("cannot write the MCP token file %1").arg(path));
    }
    return token;
}

} // namespace sbw
