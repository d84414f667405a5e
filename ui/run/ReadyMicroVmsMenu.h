#pragma once

#include <QMenu>

namespace sbw {

class SandboxPool;

/// Run ▸ Ready MicroVMs: how many pre-booted microVMs the window's pool keeps (None, 1, 2, 4;
/// SandboxPool::setSize). The choice is a setting (run/readyMicroVms, default 1), applied to
/// the pool when the menu is made and whenever it changes. Each waiting microVM holds about
/// 200 MB of host memory (QEMU's resident size of a restored one under TCG).
class ReadyMicroVmsMenu : public QMenu
{
    Q_OBJECT

public:
    /// `pool` is not owned and must outlive the menu.
    explicit ReadyMicroVmsMenu(SandboxPool* pool, QWidget* parent = nullptr);

    /// The checked choice's size.
    int size() const;
    /// Checks the choice of `size` (one of the offered ones) as if the user had picked it.
    void choose(int size);

private:
    SandboxPool* m_pool;
};

} // namespace sbw
