#include "hypervisor/DomainXmlEdit.h"

namespace sbw::domain_xml {

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

void setChildText(QDomDocument& document, QDomElement parent, const QString& name, const QString& text)
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

Expected<void> setDiskSource(QDomElement devices, const QString& file)
{
    for (QDomElement disk : children(devices, QStringLiteral("disk"))) {
        if (disk.firstChildElement(QStringLiteral("target")).attribute(QStringLiteral("dev")) != QLatin1String("vda"))
            continue;
        disk.firstChildElement(QStringLiteral("source")).setAttribute(QStringLiteral("file"), file);
        return {};
    }
    return makeError(QStringLiteral("the definition has no disk vda"));
}

QDomElement sandboxMetadata(const QDomElement& domain)
{
    const QList<QDomElement> found = children(domain.firstChildElement(QStringLiteral("metadata")), QStringLiteral("sandbox"));
    return found.isEmpty() ? QDomElement() : found.first();
}

} // namespace sbw::domain_xml
