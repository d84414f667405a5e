#pragma once

#include "base/Expected.h"

#include <QDomDocument>
#include <QDomElement>
#include <QList>
#include <QString>

namespace sbw::domain_xml {

/// Edits of a libvirt XML description that keep everything else as it is (forks of a workspace,
/// clones of a saved state: their devices must stay what the saved memory expects).

/// `xml` parsed; errors name `what` ("the source workspace's definition …") when it is not XML or
/// its root element is not `root`.
Expected<QDomDocument> parse(const QString& xml, const QString& root, const char* what);

/// The child elements of `parent` whose name, without a namespace prefix, is `name`.
QList<QDomElement> children(const QDomElement& parent, const QString& name);

/// Replaces `element`'s content by `text`.
void setText(QDomDocument& document, QDomElement element, const QString& text);

/// Sets the text of `parent`'s child `name` (with `parent`'s namespace prefix), adding it.
void setChildText(QDomDocument& document, QDomElement parent, const QString& name, const QString& text);

/// Points disk vda of <devices> at `file`. Errors: there is no disk vda.
Expected<void> setDiskSource(QDomElement devices, const QString& file);

/// The workbench's <metadata><sbw:sandbox> element, or a null element.
QDomElement sandboxMetadata(const QDomElement& domain);

} // namespace sbw::domain_xml
