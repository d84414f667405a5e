#pragma once

#include <QStringList>

namespace sbw {

/// Entry point of `sbw image list [--json] | build NAME|PATH | rm NAME`: `arguments` as from
/// QCoreApplication::arguments() without the word "image". Returns the exit status: 0, 2 for
/// usage errors, 125 when a build, a listing or a removal fails (one line "sbw: error: ...").
///
/// list: one row per recipe (sorted by name): NAME, SOURCE (built-in or user), STATE (built,
///   outdated, not built), HASH of the cached build ("-" if none), SIZE of its rootfs.qcow2 in
///   MiB, DESCRIPTION. --json prints one array of objects {name, source, state, recipe_path,
///   built_hash, built (UTC time from the manifest), disk_bytes, description}.
/// build: builds the image of a recipe name or recipe file, printing the builder's progress on
///   stderr; an image already in the cache is reused in about a second.
/// rm: removes every cached build of the recipe name and its images/NAME link; sandboxes and
///   workspaces that exist keep working (they use the libvirt storage pool's copy).
int imageCommand(QStringList arguments);

} // namespace sbw
