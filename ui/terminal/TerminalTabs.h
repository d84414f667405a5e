#pragma once

#include "base/Expected.h"
#include "terminal/TerminalTab.h"

#include <QWidget>

#include <functional>
#include <memory>

class QLabel;
class QStackedWidget;
class QTabWidget;

namespace sbw {

class GuestSession;

/// Several terminal tabs on one sandbox, with a "New Terminal" button beside the tabs and, while
/// no tab is open (none yet, or the last one was closed), a page that says so and offers one.
/// Getting the sandbox's SSH session may block (it connects when there is none yet), so
/// `sessionProvider` runs on Qt's thread pool; the tab is made on the GUI thread once it returns.
/// A tab's label tells when its shell is disconnected or has ended.
class TerminalTabs : public QWidget
{
    Q_OBJECT

public:
    using SessionProvider = TerminalTab::SessionProvider;

    /// Tabs whose shells live as `lifetime` says (TerminalTab::Lifetime).
    TerminalTabs(QString sandboxName, SessionProvider sessionProvider,
                 TerminalTab::Lifetime lifetime, QWidget* parent = nullptr);

    /// Opens another shell tab; openFailed() or tabOpened() follows.
    void openTerminal();
    int count() const;
    TerminalTab* tab(int index) const;
    /// Every disconnected tab tries to reconnect (TerminalTab::reconnect()): call it when the
    /// sandbox runs again.
    void reconnect();

Q_SIGNALS:
    void tabOpened(sbw::TerminalTab* tab);
    void openFailed(const QString& message);

private:
    const QString m_sandboxName;
    SessionProvider m_sessionProvider;
    const TerminalTab::Lifetime m_lifetime;
    void showTabsOrOffer();

    QStackedWidget* m_pages;
    QWidget* m_noTerminal; ///< the page shown while no tab is open
    QTabWidget* m_tabs;
    QLabel* m_status;
    int m_opened = 0;
};

} // namespace sbw
