#include "TemporarySettings.h"

#include <QCoreApplication>
#include <QSettings>

namespace sbw::test {

TemporarySettings::TemporarySettings()
{
    // QSettings needs an organization to be usable; the program sets its own (app/gui/main.cpp).
    if (QCoreApplication::organizationName().isEmpty())
        QCoreApplication::setOrganizationName(QStringLiteral("sandbox-workbench-test"));
    for (const QSettings::Format format : {QSettings::NativeFormat, QSettings::IniFormat})
        QSettings::setPath(format, QSettings::UserScope, m_dir.path());
}

void TemporarySettings::clear()
{
    QSettings().clear();
}

} // namespace sbw::test
