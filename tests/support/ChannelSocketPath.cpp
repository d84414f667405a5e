#include "ChannelSocketPath.h"

#include <QXmlStreamReader>

#include <cstdlib>

namespace sbw::test {

Expected<QString> channelSocketPath(virConnectPtr conn, const QString& domainName, const QString& port)
{
    virDomainPtr domain = virDomainLookupByName(conn, domainName.toUtf8().constData());
    if (!domain)
        return makeError(QStringLiteral("no domain %1").arg(domainName));
    char* xml = virDomainGetXMLDesc(domain, 0);
    virDomainFree(domain);
    QXmlStreamReader reader(QString::fromUtf8(xml));
    free(xml);
    QString path;
    QString candidate;
    while (!reader.atEnd()) {
        reader.readNext();
        if (!reader.isStartElement())
            continue;
        if (reader.name() == QLatin1String("channel"))
            candidate.clear();
        else if (reader.name() == QLatin1String("source"))
            candidate = reader.attributes().value(QLatin1String("path")).toString();
        else if (reader.name() == QLatin1String("target") && reader.attributes().value(QLatin1String("name")) == port)
            path = candidate;
    }
    if (path.isEmpty())
        return makeError(QStringLiteral("no socket path for channel %1 in the XML of %2").arg(port, domainName));
    return path;
}

} // namespace sbw::test
