#pragma once

#include "base/Expected.h"

#include <QWidget>

#include <functional>
#include <memory>

class QLabel;

namespace sbw {

class GuestSession;

/// A tab of the run pane that looks into the current run's microVM: its terminals or its file
/// tree. While no run's guest is ready, a line says so. Once it is (setSession()), the content
/// is made by the factory the first time the tab is visible; the factory gets a provider that
/// hands out the run's SSH session, or fails with "the run's microVM is gone" once the run has
/// ended (it may be called on any thread). When the run ends, the content stays for reading
/// under a line saying that the microVM is gone, until the next run starts; content whose
/// controls act on the guest (AfterEnd::Disable, the file tree) is disabled then.
class RunGuestTab : public QWidget
{
    Q_OBJECT

public:
    using SessionProvider = std::function<Expected<std::shared_ptr<GuestSession>>()>;
    using Factory = std::function<QWidget*(SessionProvider provider)>;
    /// What the content is once the run has ended: still usable (terminals: their scrollback
    /// can be selected and copied) or disabled (a file tree's buttons would act on no guest).
    enum class AfterEnd
    {
        KeepUsable,
        Disable
    };

    /// `what` names the content in the lines shown, in plural ("terminals", "files").
    RunGuestTab(Factory factory, const QString& what, AfterEnd afterEnd, QWidget* parent = nullptr);
    ~RunGuestTab() override;

    /// A run started: the previous run's content goes; the page waits for the guest.
    void runStarted();
    /// The run's guest is ready: its session, shared with the run until the run's clean-up.
    void setSession(std::shared_ptr<GuestSession> session);
    /// The run ended: its microVM is being destroyed or gone.
    void runEnded();

    /// True between setSession() and runEnded().
    bool isLive() const;
    /// The content (TerminalTabs, WorkspaceFilesPage …) once made, else nullptr.
    QWidget* content() const { return m_content; }
    /// The line above the content; empty while the run's guest is live.
    QString noticeText() const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// The session as providers see it, from any thread.
    struct Live;

    QString idleText() const;
    void dropSession();
    void makeContent();
    void setNotice(const QString& text);

    Factory m_factory;
    QString m_what;
    AfterEnd m_afterEnd;
    QLabel* m_notice;
    QWidget* m_content = nullptr;
    std::shared_ptr<Live> m_live;
};

} // namespace sbw
