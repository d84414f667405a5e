#pragma once

#include "browser/BrowserPage.h"

#include <QPointer>
#include <QWidget>

#include <deque>
#include <functional>
#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace sbw {

class BrowserSession;
class BrowserView;
class CommandLog;
class Workspace;

/// The Browser tab of one workspace: a live view of its browser's page (CDP screencast
/// frames, drawn by BrowserView), the page's address and title as plain text, and the
/// person's take-over.
///
/// Watching, the person sees every step an agent takes (the agents' tools drive the same page
/// through their own connection). Take Over records a hold (browser_hold) that makes the
/// agents' browser tools refuse their steps with the person's name; then the person's clicks
/// and keys in the view, the address line and Back act on the page, each a command-log row of
/// kind browse with the page before and after. Hand Back (or closing the tab or the window)
/// lifts the hold.
///
/// The browser starts when the tab is first shown for a running workspace (images without a
/// browser say so here). When the workspace stops, showGuestDown() ends the connection.
class WorkspaceBrowserPage : public QWidget
{
    Q_OBJECT

public:
    using WorkspaceProvider = std::function<std::shared_ptr<Workspace>()>;

    /// `person`: the name the hold and the agents' refusals give.
    WorkspaceBrowserPage(QString workspaceName, WorkspaceProvider workspace, QString person,
                         QWidget* parent = nullptr);
    ~WorkspaceBrowserPage() override;

    /// Logs the person's steps as rows in `log`.
    void setCommandLog(std::shared_ptr<CommandLog> log) { m_log = std::move(log); }

    BrowserView* view() const { return m_view; }
    QLineEdit* addressLine() const { return m_address; }
    QPushButton* takeOverButton() const { return m_takeOver; }
    QString pageTitle() const;
    /// The sentence above the view (what is happening, or why there is no page).
    QString statusText() const;
    bool isHeld() const { return m_held; }
    /// Whether a person's step runs or waits.
    bool isStepPending() const { return m_stepRunning || !m_steps.empty(); }

public Q_SLOTS:
    /// Connects to the workspace's browser, starting it when none runs.
    void connectToBrowser();
    /// Ends the connection and shows `why` in place of the page.
    void showGuestDown(const QString& why);
    void takeOver();
    void handBack();

Q_SIGNALS:
    /// A new picture of the page is shown.
    void frameShown();
    /// A person's step ended (`error` empty when it succeeded).
    void stepFinished(const QString& command, const QString& error);

protected:
    /// Frames are asked for only while the tab shows: each costs the guest an encode.
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    using StepStart = std::function<void(BrowserPage&, BrowserPage::Done)>;
    /// A person's step waiting its turn: steps run one at a time, in order.
    struct Step
    {
        Step(QString command, StepStart start, bool onPage = true, QString typed = {})
            : command(std::move(command)), start(std::move(start)), onPage(onPage), typed(std::move(typed))
        {}
        QString command; ///< the row's command, e.g. "click at 412,93"
        StepStart start;
        bool onPage;   ///< the row names the page it acts on ("click at 4,9 on URL")
        QString typed; ///< for a type step: its text, which later keys extend while it waits
    };

    void onReady();
    void startScreencast();
    void onPageEvent(const QString& method, const QJsonObject& params);
    void showFrame(const QByteArray& base64, const QSizeF& pageSize);
    void refreshPage();
    void showPageState(const PageState& state);
    void logMoment(const QString& command);
    void enqueue(Step step);
    void type(const QString& text);
    void runNextStep();
    void setStatus(const QString& text, bool offerConnect = false);
    void updateControls();
    void closeSession(const QString& why);

    QString m_name;
    WorkspaceProvider m_workspace;
    QString m_person;
    std::shared_ptr<CommandLog> m_log;
    QPointer<BrowserSession> m_session;
    bool m_held = false;
    std::deque<Step> m_steps;
    bool m_stepRunning = false;
    QString m_url;

    QToolButton* m_back;
    QLineEdit* m_address;
    QPushButton* m_takeOver;
    QLabel* m_title;
    QLabel* m_status;
    QPushButton* m_connect;
    BrowserView* m_view;
};

} // namespace sbw
