#pragma once

#include <QString>

namespace sbw::paths {

/// Folders of the workbench on the host, following the XDG base directory specification
/// ($XDG_CACHE_HOME, $XDG_DATA_HOME, $XDG_STATE_HOME with their ~/.cache, ~/.local/share and
/// ~/.local/state defaults). Each function returns an absolute path ending in
/// "sandbox-workbench" (or below it) and creates nothing; use ensureDir() for that.

QString cacheDir();  ///< $XDG_CACHE_HOME/sandbox-workbench
QString imagesDir(); ///< cacheDir()/images: guest images built by packaging/guest/build-image.sh
QString dataDir();   ///< $XDG_DATA_HOME/sandbox-workbench: keys, workspaces, logs of runs
QString stateDir();  ///< $XDG_STATE_HOME/sandbox-workbench
QString logDir();    ///< stateDir()/log: spdlog files
QString configDir(); ///< $XDG_CONFIG_HOME/sandbox-workbench (~/.config/sandbox-workbench)
QString userRecipesDir(); ///< configDir()/recipes: the user's guest image recipes (NAME.recipe)

/// The folder of the guest image builder (build-image.sh) and the built-in recipes:
/// `<prefix>/share/sandbox-workbench/guest` beside an installed binary, else the source
/// tree's packaging/guest that the binary was built from.
QString guestBuilderDir();
/// The examples loadable from the window's File menu: `<prefix>/share/sandbox-workbench/examples`
/// beside an installed binary, else the source tree's resources/examples.
QString examplesDir();

/// Creates `path` (and parents) with mode 0700 if missing. Returns false if it cannot.
bool ensureDir(const QString& path);

} // namespace sbw::paths
