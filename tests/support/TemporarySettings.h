#pragma once

#include <QTemporaryDir>

namespace sbw::test {

/// Points QSettings (user scope, native and INI formats) at a folder of its own that goes with
/// this object, so that a test neither reads nor writes the person's settings (window layout,
/// run limits, ...). Make it before the first QSettings is made.
class TemporarySettings
{
public:
    TemporarySettings();

    /// Forgets everything kept so far: the next window starts as the first one did.
    void clear();

private:
    QTemporaryDir m_dir;
};

} // namespace sbw::test
