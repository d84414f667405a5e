#pragma once

#include <QMenu>

class QActionGroup;

namespace sbw {

class Host;
class RunPane;
class Workbench;

/// Run ▸ Run On: the host the run pane's next runs go to, one choice per host of the
/// workbench (the first, checked at first, and each added later). Choosing one sets the run
/// pane's connection and pre-booted microVMs to that host's (RunPane::setHost()); a run in
/// progress stays where it is.
class RunHostMenu : public QMenu
{
    Q_OBJECT

public:
    /// `workbench` and `runPane` are not owned and must outlive the menu.
    RunHostMenu(Workbench* workbench, RunPane* runPane, QWidget* parent = nullptr);

    /// The host checked now.
    Host* host() const;
    /// Checks `host`'s choice as if the user had picked it.
    void choose(Host* host);

private:
    void add(Host* host);

    RunPane* m_runPane;
    QActionGroup* m_group;
    Host* m_firstHost; ///< the default host, not named in the run pane's status line
};

} // namespace sbw
