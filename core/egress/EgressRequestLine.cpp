#include "egress/EgressRequestLine.h"

namespace sbw {

QString egressRequestLine(const HttpProxyRequest& request)
{
    // An IPv6 literal gets its brackets back, so that the line reads as the client sent it.
    const QString host = request.host.contains(QLatin1Char(':')) ? QLatin1Char('[') + request.host + QLatin1Char(']')
                                                                 : request.host;
    if (request.isConnect())
        return QStringLiteral("CONNECT %1:%2").arg(host).arg(request.port);
    return QStringLiteral("%1 http://%2:%3%4")
        .arg(QString::fromLatin1(request.method), host)
        .arg(request.port)
        .arg(QString::fromUtf8(request.target));
}

std::optional<NetworkDestination> loggedDestination(const ActionRecord& row)
{
    if (row.kind != ActionKind::Network)
        return std::nullopt;
    HttpProxyRequestReader reader;
    reader.feed(row.command.toUtf8() + " HTTP/1.1\r\n\r\n");
    if (reader.state() != HttpProxyRequestReader::State::Done)
        return std::nullopt;
    const auto host = normaliseHost(reader.request().host);
    if (!host)
        return std::nullopt;
    return NetworkDestination{*host, reader.request().port, {}};
}

} // namespace sbw
