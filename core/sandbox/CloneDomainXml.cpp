#include "sandbox/CloneDomainXml.h"

#include "hypervisor/DomainXmlEdit.h"
#include "sandbox/RunLease.h"

namespace sbw {

using namespace domain_xml;

namespace {

const QString kQemuNamespace = QStringLiteral("http://libvirt.org/schemas/domain/qemu/1.0");

void addIncomingDefer(QDomDocument& document, QDomElement domain)
{
    domain.setAttribute(QStringLiteral("xmlns:qemu"), kQemuNamespace);
    QDomElement commandline = document.createElement(QStringLiteral("qemu:commandline"));
    for (const QString& value : {QStringLiteral("-incoming"), QStringLiteral("defer")}) {
        QDomElement arg = document.createElement(QStringLiteral("qemu:arg"));
        arg.setAttribute(QStringLiteral("value"), value);
        commandline.appendChild(arg);
    }
    domain.appendChild(commandline);
}

void addLease(QDomDocument& document, QDomElement domain, const QDateTime& until)
{
    QDomElement metadata = domain.firstChildElement(QStringLiteral("metadata"));
    if (metadata.isNull())
        metadata = domain.appendChild(document.createElement(QStringLiteral("metadata"))).toElement();
    QDomElement lease = document.createElementNS(QLatin1String(kRunLeaseNamespace), QStringLiteral("lease"));
    lease.setAttribute(QStringLiteral("until"), until.toUTC().toString(Qt::ISODate));
    metadata.appendChild(lease);
}

} // namespace

Expected<QString> cloneDomainXml(const QString& savedXml, const CloneIdentity& clone, CloneLoad load)
{
    auto document = parse(savedXml, QStringLiteral("domain"), "the saved state's definition");
    if (!document)
        return document.error();
    QDomElement domain = document->documentElement();
    setText(document.value(), domain.firstChildElement(QStringLiteral("name")), clone.name);
    setChildText(document.value(), domain, QStringLiteral("uuid"), clone.uuid);
    if (auto set = setDiskSource(domain.firstChildElement(QStringLiteral("devices")), clone.overlay); !set)
        return makeError(QStringLiteral("the saved state's definition has no disk vda"));
    if (QDomElement sandbox = sandboxMetadata(domain); !sandbox.isNull()) {
        setChildText(document.value(), sandbox, QStringLiteral("overlay"), clone.overlay);
        setChildText(document.value(), sandbox, QStringLiteral("created"),
                     clone.created.toUTC().toString(Qt::ISODateWithMs));
    }
    if (clone.leaseUntil.isValid())
        addLease(document.value(), domain, clone.leaseUntil);
    for (const QDomElement& old : children(domain, QStringLiteral("commandline")))
        domain.removeChild(old);
    if (load == CloneLoad::IncomingDefer)
        addIncomingDefer(document.value(), domain);
    return document->toString();
}

} // namespace sbw
