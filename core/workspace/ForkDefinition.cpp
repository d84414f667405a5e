#include "workspace/ForkDefinition.h"

#include <QDomDocument>

namespace sbw {
namespace {

Expected<QDomDocument> parse(const QString& xml, const QString& root, const char* what)
{
    QDomDocument document;
    QString message;
    int line = 0;
    if (!document.setContent(xml, &message, &line)) // Qt 6.4's form (Debian 12)
        return makeError(QStringLiteral("%1 is not valid XML: %2 (line %3)")
                             .arg(QLatin1String(what), message)
                             .arg(line));
    if (document.documentElement().tagName() != root)
        return makeError(QStringLiteral("%1 has no <%2> element").arg(QLatin1String(what), root));
    return document;
}

/// The child elements of `parent` whose name, without a namespace prefix, is `name`.
QList<QDomElement> children(const QDomElement& parent, const QString& name)
{
    QList<QDomElement> found;
    for (QDomElement e = parent.firstChildElement(); !e.isNull(); e = e.nextSiblingElement()) {
        const QString tag = e.tagName();
        if (tag == name || tag.endsWith(QLatin1Char(':') + name))
            found << e;
    }
    return found;
}

void setText(QDomDocument& document, QDomElement element, const QString& text)
{
    while (element.hasChildNodes())
        element.removeChild(element.firstChild());
    element.appendChild(document.createTextNode(text));
}

/// Sets the text of `parent`'s child `name` (with `parent`'s namespace prefix), adding it.
void setChildText(QDomDocument& document, QDomElement parent, const QString& name,
                  const QString& text)
{
    QList<QDomElement> existing = children(parent, name);
    if (existing.isEmpty()) {
        const QString tag = parent.prefix().isEmpty() && parent.tagName().contains(QLatin1Char(':'))
                                ? parent.tagName().section(QLatin1Char(':'), 0, 0) + QLatin1Char(':') + name
                                : name;
        existing << parent.appendChild(document.createElement(tag)).toElement();
    }
    setText(document, existing.first(), text);
}

Expected<void> setOverlay(QDomElement devices, const QString& overlay)
{
    for (QDomElement disk : children(devices, QStringLiteral("disk"))) {
        if (disk.firstChildElement(QStringLiteral("target")).attribute(QStringLiteral("dev")) !=
            QLatin1String("vda"))
            continue;
        disk.firstChildElement(QStringLiteral("source")).setAttribute(QStringLiteral("file"), overlay);
        return {};
    }
    return makeError(QStringLiteral("the source workspace's definition has no disk vda"));
}

void setConsoleLogs(QDomElement devices, const QString& consoleLog)
{
    for (const QString& kind : {QStringLiteral("serial"), QStringLiteral("console")}) {
        for (const QDomElement& device : children(devices, kind)) {
            QDomElement log = device.firstChildElement(QStringLiteral("log"));
            if (!log.isNull())
                log.setAttribute(QStringLiteral("file"), consoleLog);
        }
    }
}

/// No network: every NIC's link down (QEMU drops what the guest sends and delivers nothing).
void cutNetwork(QDomDocument& document, QDomElement devices)
{
    for (QDomElement nic : children(devices, QStringLiteral("interface"))) {
        QDomElement link = nic.firstChildElement(QStringLiteral("link"));
        if (link.isNull())
            link = nic.appendChild(document.createElement(QStringLiteral("link"))).toElement();
        link.setAttribute(QStringLiteral("state"), QStringLiteral("down"));
    }
}

Expected<void> setMetadata(QDomDocument& document, QDomElement domain, const ForkIdentity& fork)
{
    const QList<QDomElement> sandboxes =
        children(domain.firstChildElement(QStringLiteral("metadata")), QStringLiteral("sandbox"));
    if (sandboxes.isEmpty())
        return makeError(QStringLiteral("the source workspace's definition has no workbench metadata"));
    QDomElement sandbox = sandboxes.first();
    setChildText(document, sandbox, QStringLiteral("name"), fork.workspace);
    setChildText(document, sandbox, QStringLiteral("overlay"), fork.overlay);
    setChildText(document, sandbox, QStringLiteral("created"),
                 fork.created.toUTC().toString(Qt::ISODateWithMs));
    for (const QDomElement& old : children(sandbox, QStringLiteral("origin")))
        sandbox.removeChild(old);
    const QString prefix = sandbox.tagName().contains(QLatin1Char(':'))
                               ? sandbox.tagName().section(QLatin1Char(':'), 0, 0) + QLatin1Char(':')
                               : QString();
    QDomElement origin = document.createElement(prefix + QLatin1String("origin"));
    origin.setAttribute(QStringLiteral("workspace"), fork.origin.workspace);
    if (!fork.origin.checkpoint.isEmpty())
        origin.setAttribute(QStringLiteral("checkpoint"), fork.origin.checkpoint);
    origin.setAttribute(QStringLiteral("forked"), fork.origin.forked.toUTC().toString(Qt::ISODateWithMs));
    sandbox.appendChild(origin);
    if (fork.offline)
        for (QDomElement settings : children(sandbox, QStringLiteral("settings")))
            settings.setAttribute(QStringLiteral("network"), workspaceNetworkName(WorkspaceNetwork::None));
    return {};
}

} // namespace

Expected<QString> forkDomainXml(const QString& sourceXml, const ForkIdentity& fork)
{
    auto document = parse(sourceXml, QStringLiteral("domain"), "the source workspace's definition");
    if (!document)
        return document.error();
    QDomElement domain = document->documentElement();
    setText(document.value(), domain.firstChildElement(QStringLiteral("name")), fork.domain);
    for (const QDomElement& uuid : children(domain, QStringLiteral("uuid")))
        domain.removeChild(uuid);
    QDomElement devices = domain.firstChildElement(QStringLiteral("devices"));
    if (auto set = setOverlay(devices, fork.overlay); !set)
        return set.error();
    setConsoleLogs(devices, fork.consoleLog);
    if (fork.offline)
        cutNetwork(document.value(), devices);
    if (auto set = setMetadata(document.value(), domain, fork); !set)
        return set.error();
    return document->toString();
}

Expected<QString> redefinedSnapshotXml(const QString& snapshotXml, const QString& domainXml)
{
    auto snapshot = parse(snapshotXml, QStringLiteral("domainsnapshot"), "the checkpoint's description");
    if (!snapshot)
        return snapshot.error();
    auto domain = parse(domainXml, QStringLiteral("domain"), "the fork's definition");
    if (!domain)
        return domain.error();
    QDomElement root = snapshot->documentElement();
    for (const QString& name : {QStringLiteral("domain"), QStringLiteral("inactiveDomain")})
        for (const QDomElement& old : children(root, name))
            root.removeChild(old);
    root.appendChild(snapshot->importNode(domain->documentElement(), true));
    return snapshot->toString();
}

} // namespace sbw
