#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QJsonValue>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace sbw {

class BrowserSession;

/// Where the page is: its address and title, read from the page itself.
struct PageState
{
    QString url;
    QString title;
};

/// What one browser step did: the page before and after it (a click may navigate), and what
/// the step returns (text for browser_text, a PNG for browser_screenshot).
struct BrowserStep
{
    PageState before;
    PageState after;
    QString text;   ///< text(): the page's visible text with element references
    QByteArray png; ///< screenshot(): the viewport as PNG
    int width = 0;  ///< screenshot(): PNG size in pixels
    int height = 0;
};

/// The steps an agent or a person takes in a workspace's browser, each as real input to the
/// page through CDP (Input.dispatchMouseEvent, Input.insertText, Input.dispatchKeyEvent): the
/// page sees trusted events, as from a person. After a step that may load a page, the step
/// waits until the document has loaded (at most kSettleLimit).
///
/// Element references ("e7") come from the latest text(): it marks each visible interactive
/// element (links, buttons, fields, elements with a role or onclick) with
/// `data-sbw-ref` and lists it as `[e7] button "Send"`. A page can see and change those marks;
/// a click checks that the reference still names a visible element.
///
/// Lives on the session's thread; `done` is called exactly once there, unless this object is
/// destroyed first.
class BrowserPage : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(Expected<BrowserStep>)>;

    explicit BrowserPage(BrowserSession* session, QObject* parent = nullptr);

    /// Loads `url` (http, https, file or about:blank). Errors: another scheme, the page did not
    /// load ("net::ERR_TUNNEL_CONNECTION_FAILED": the egress proxy refused it).
    void navigate(const QString& url, Done done);
    /// Reads where the page is (before == after), changing nothing.
    void current(Done done);
    void back(Done done);
    /// text: the visible text, one line per block, interactive elements as `[eN] role "label"`.
    void text(Done done);
    void screenshot(Done done);
    /// Clicks the centre of the element `ref` (scrolled into view). Errors: no such reference.
    void click(const QString& ref, Done done);
    /// Clicks at (x, y), CSS pixels of the viewport.
    void clickAt(double x, double y, Done done);
    /// Types `text` into the focused element (after clicking `ref` when given).
    void type(const QString& text, const QString& ref, Done done);
    /// Presses `key`: Enter, Tab, Backspace, Delete, Escape, ArrowUp/Down/Left/Right, Home, End,
    /// PageUp, PageDown, Space, or one printable character.
    void key(const QString& key, Done done);

    /// Whether `ref` has the form of a reference ("e" and digits).
    static bool isReference(const QString& ref);
    /// Whether `key` is one key() accepts.
    static bool isKnownKey(const QString& key);
    /// Whether navigate() accepts `url`.
    static bool isNavigableUrl(const QString& url);
    /// How a log row names a type step: `type "text"`, or `type "text" into e3` (quotes in
    /// the text escaped).
    static QString typeCommand(const QString& text, const QString& ref);

private:
    using Action = std::function<void(std::function<void(Expected<BrowserStep>)>)>;
    /// Reads the page's state, runs `action`, waits for a load it started, reads the state.
    void step(Action action, bool settle, Done done);
    void evaluate(const QString& expression, std::function<void(Expected<QJsonValue>)> done);
    void readState(std::function<void(Expected<PageState>)> done);
    void settle(int polls, std::function<void()> done);
    void mouseClick(double x, double y, std::function<void(Expected<BrowserStep>)> done);

    QPointer<BrowserSession> m_session;
};

} // namespace sbw
