#include "base/DataPaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace sbw::paths {
namespace {

QString xdgDir(const char* variable, const char* fallbackUnderHome)
{
    const QString value = qEnvironmentVariable(variable);
    // The XDG spec says relative values are invalid and must be ignored.
    if (!value.isEmpty() && QDir::isAbsolutePath(value))
        return value;
    return QDir::homePath() + QLatin1Char('/') + QLatin1String(fallbackUnderHome);
}

const QLatin1String kAppDir("/sandbox-workbench");

} // namespace

QString cacheDir() { return xdgDir("XDG_CACHE_HOME", ".cache") + kAppDir; }
QString imagesDir() { return cacheDir() + QLatin1String("/images"); }
QString dataDir() { return xdgDir("XDG_DATA_HOME", ".local/share") + kAppDir; }
QString stateDir() { return xdgDir("XDG_STATE_HOME", ".local/state") + kAppDir; }
QString logDir() { return stateDir() + QLatin1String("/log"); }
QString configDir() { return xdgDir("XDG_CONFIG_HOME", ".config") + kAppDir; }
QString userRecipesDir() { return configDir() + QLatin1String("/recipes"); }

QString guestBuilderDir()
{
    const QString installed = QCoreApplication::applicationDirPath()
                              + QLatin1String("/../share/sandbox-workbench/guest");
    if (QFileInfo::exists(installed + QLatin1String("/build-image.sh")))
        return QDir::cleanPath(installed);
    return QStringLiteral(SBW_SOURCE_GUEST_DIR);
}

QString examplesDir()
{
    const QString installed = QCoreApplication::applicationDirPath()
                              + QLatin1String("/../share/sandbox-workbench/examples");
    if (QFileInfo::exists(installed))
        return QDir::cleanPath(installed);
    return QStringLiteral(SBW_SOURCE_EXAMPLES_DIR);
}

bool ensureDir(const QString& path)
{
    QDir dir(path);
    if (dir.exists())
        return true;
    if (!dir.mkpath(QStringLiteral(".")))
        return false;
    return QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

} // namespace sbw::paths
