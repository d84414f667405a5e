#include "browser/BrowserPage.h"

#include "browser/BrowserSession.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimer>
#include <QUrl>
#include <QtEndian>

namespace sbw {
namespace {

/// How often and how long a step waits for the page to finish loading after it.
constexpr int kSettlePollMs = 250;
constexpr int kSettleLimitPolls = 240; // 60 s

/// Lists the page's visible text and its interactive elements, marking each element with a
/// reference the click and type steps find it by.
const char* const kTextScript = R"JS((() => {
  const out = [];
  let n = 0;
  const interactive = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],' +
    '[role=checkbox],[role=tab],[role=menuitem],[onclick],[contenteditable=""],[contenteditable=true]';
  document.querySelectorAll('[data-sbw-ref]').forEach(e => e.removeAttribute('data-sbw-ref'));
  const shown = e => {
    const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const clean = t => String(t || '').replace(/\s+/g, ' ').trim().slice(0, 200);
  const walk = node => {
    if (node.nodeType === Node.TEXT_NODE) {
      const t = clean(node.textContent);
      if (t && node.parentElement && shown(node.parentElement)) out.push(t);
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const tag = node.tagName.toLowerCase();
    if (['script', 'style', 'noscript', 'template', 'head'].includes(tag)) return;
    if (node.matches(interactive) && shown(node)) {
      const ref = 'e' + (++n);
      node.setAttribute('data-sbw-ref', ref);
      const role = node.getAttribute('role') || (tag === 'input' ? 'input ' + (node.type || 'text') : tag);
      const label = clean(node.getAttribute('aria-label') || node.innerText || node.placeholder ||
                          node.name || node.title || (tag === 'input' && node.type !== 'text' ? node.value : ''));
      let line = '[' + ref + '] ' + role + ' "' + label + '"';
      if ((tag === 'input' || tag === 'textarea') && node.value) line += ' value="' + clean(node.value) + '"';
      if (tag === 'a') line += ' -> ' + node.href;
      out.push(line);
      if (['a', 'button', 'select', 'textarea', 'input'].includes(tag)) return;
    }
    for (const child of node.childNodes) walk(child);
  };
  walk(document.body || document.documentElement);
  return out.join('\n');
})())JS";

/// The centre of the element marked `ref`, scrolled into view, or null.
QString centreScript(const QString& ref)
{
    return QStringLiteral(R"JS((() => {
  const e = document.querySelector('[data-sbw-ref="%1"]');
  if (!e) return null;
  e.scrollIntoView({block: 'center', inline: 'center'});
  const r = e.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return null;
  return [r.left + r.width / 2, r.top + r.height / 2];
})())JS")
        .arg(ref);
}

struct KeyInfo
{
    const char* name;
    int code;         ///< windowsVirtualKeyCode
    const char* text; ///< what the key types, or empty
};
constexpr KeyInfo kKeys[] = {
    {"Enter", 13, "\r"}, {"Tab", 9, ""},        {"Backspace", 8, ""}, {"Delete", 46, ""},
    {"Escape", 27, ""},  {"ArrowUp", 38, ""},   {"ArrowDown", 40, ""}, {"ArrowLeft", 37, ""},
    {"ArrowRight", 39, ""}, {"Home", 36, ""},   {"End", 35, ""},      {"PageUp", 33, ""},
    {"PageDown", 34, ""}, {"Space", 32, " "},
};

const KeyInfo* namedKey(const QString& key)
{
    for (const KeyInfo& info : kKeys) {
        if (key == QLatin1String(info.name))
            return &info;
    }
    return nullptr;
}

/// The width and height in a PNG's IHDR chunk; 0 × 0 when `png` is not a PNG.
std::pair<int, int> pngSize(const QByteArray& png)
{
    static const QByteArray kSignature("\x89PNG\r\n\x1a\n", 8);
    if (png.size() < 24 || !png.startsWith(kSignature) || png.mid(12, 4) != "IHDR")
        return {0, 0};
    return {int(qFromBigEndian<quint32>(png.constData() + 16)), int(qFromBigEndian<quint32>(png.constData() + 20))};
}

} // namespace

BrowserPage::BrowserPage(BrowserSession* session, QObject* parent) : QObject(parent), m_session(session) {}

bool BrowserPage::isReference(const QString& ref)
{
    // Anchored at the very end: "$" would also match before a final newline ("e1\n").
    static const QRegularExpression pattern(QRegularExpression::anchoredPattern(QStringLiteral("e[0-9]{1,6}")));
    return pattern.match(ref).hasMatch();
}

bool BrowserPage::isKnownKey(const QString& key)
{
    return namedKey(key) || (key.size() == 1 && key.at(0).isPrint());
}

bool BrowserPage::isNavigableUrl(const QString& url)
{
    const QUrl parsed(url, QUrl::StrictMode);
    const QString scheme = parsed.scheme();
    if (url == QLatin1String("about:blank"))
        return true;
    return parsed.isValid() && (scheme == QLatin1String("http") || scheme == QLatin1String("https") ||
                                scheme == QLatin1String("file"));
}

QString BrowserPage::typeCommand(const QString& text, const QString& ref)
{
    const QString quoted = QLatin1Char('"') + QString(text).replace(QLatin1Char('"'), QLatin1String("\\\"")) + QLatin1Char('"');
    return ref.isEmpty() ? QStringLiteral("type %1").arg(quoted) : QStringLiteral("type %1 into %2").arg(quoted, ref);
}

void BrowserPage::navigate(const QString& url, Done done)
{
    if (!isNavigableUrl(url))
        return done(makeError(QStringLiteral("\"%1\" is not an http, https or file address").arg(url)));
    step(
        [this, url](auto finish) {
            m_session->call(QStringLiteral("Page.navigate"), {{QStringLiteral("url"), url}}, [finish](Expected<QJsonObject> result) {
                if (!result)
                    return finish(result.error());
                const QString error = result.value().value(QStringLiteral("errorText")).toString();
                if (!error.isEmpty())
                    return finish(makeError(QStringLiteral("the page did not load: %1").arg(error)));
                finish(BrowserStep{});
            });
        },
        true, std::move(done));
}

void BrowserPage::current(Done done)
{
    step([](auto finish) { finish(BrowserStep{}); }, false, std::move(done));
}

void BrowserPage::back(Done done)
{
    step(
        [this](auto finish) {
            m_session->call(QStringLiteral("Page.getNavigationHistory"), {}, [this, finish](Expected<QJsonObject> history) {
                if (!history)
                    return finish(history.error());
                const int current = history.value().value(QStringLiteral("currentIndex")).toInt();
                const QJsonArray entries = history.value().value(QStringLiteral("entries")).toArray();
                if (current <= 0)
                    return finish(makeError(QStringLiteral("there is no earlier page")));
                const QJsonObject entry{{QStringLiteral("entryId"), entries.at(current - 1).toObject().value(QStringLiteral("id"))}};
                m_session->call(QStringLiteral("Page.navigateToHistoryEntry"), entry, [finish](Expected<QJsonObject> result) {
                    finish(result ? Expected<BrowserStep>(BrowserStep{}) : Expected<BrowserStep>(result.error()));
                });
            });
        },
        true, std::move(done));
}

void BrowserPage::text(Done done)
{
    step(
        [this](auto finish) {
            evaluate(QString::fromUtf8(kTextScript), [finish](Expected<QJsonValue> value) {
                if (!value)
                    return finish(value.error());
                BrowserStep result;
                result.text = value.value().toString();
                finish(result);
            });
        },
        false, std::move(done));
}

void BrowserPage::screenshot(Done done)
{
    step(
        [this](auto finish) {
            m_session->call(QStringLiteral("Page.captureScreenshot"), {{QStringLiteral("format"), QStringLiteral("png")}},
                            [finish](Expected<QJsonObject> shot) {
                                if (!shot)
                                    return finish(shot.error());
                                BrowserStep result;
                                result.png = QByteArray::fromBase64(shot.value().value(QStringLiteral("data")).toString().toLatin1());
                                std::tie(result.width, result.height) = pngSize(result.png);
                                finish(result);
                            });
        },
        false, std::move(done));
}

void BrowserPage::click(const QString& ref, Done done)
{
    if (!isReference(ref))
        return done(makeError(QStringLiteral("\"%1\" is not an element reference (e1, e2, … from browser_text)").arg(ref)));
    step(
        [this, ref](auto finish) {
            evaluate(centreScript(ref), [this, ref, finish](Expected<QJsonValue> centre) {
                if (!centre)
                    return finish(centre.error());
                const QJsonArray point = centre.value().toArray();
                if (point.size() != 2)
                    return finish(makeError(QStringLiteral("no visible element has reference %1 (read the page again with browser_text)").arg(ref)));
                mouseClick(point.at(0).toDouble(), point.at(1).toDouble(), finish);
            });
        },
        true, std::move(done));
}

void BrowserPage::clickAt(double x, double y, Done done)
{
    step([this, x, y](auto finish) { mouseClick(x, y, finish); }, true, std::move(done));
}

void BrowserPage::type(const QString& text, const QString& ref, Done done)
{
    if (!ref.isEmpty() && !isReference(ref))
        return done(makeError(QStringLiteral("\"%1\" is not an element reference (e1, e2, … from browser_text)").arg(ref)));
    const auto insert = [this, text](std::function<void(Expected<BrowserStep>)> finish) {
        m_session->call(QStringLiteral("Input.insertText"), {{QStringLiteral("text"), text}}, [finish](Expected<QJsonObject> result) {
            finish(result ? Expected<BrowserStep>(BrowserStep{}) : Expected<BrowserStep>(result.error()));
        });
    };
    if (ref.isEmpty())
        return step(insert, false, std::move(done));
    step(
        [this, ref, insert](auto finish) {
            evaluate(centreScript(ref), [this, ref, insert, finish](Expected<QJsonValue> centre) {
                const QJsonArray point = centre ? centre.value().toArray() : QJsonArray();
                if (point.size() != 2)
                    return finish(makeError(QStringLiteral("no visible element has reference %1 (read the page again with browser_text)").arg(ref)));
                mouseClick(point.at(0).toDouble(), point.at(1).toDouble(), [insert, finish](Expected<BrowserStep> clicked) {
                    if (!clicked)
                        return finish(clicked.error());
                    insert(finish);
                });
            });
        },
        false, std::move(done));
}

void BrowserPage::key(const QString& key, Done done)
{
    if (!isKnownKey(key))
        return done(makeError(QStringLiteral("\"%1\" is not a key this tool presses (Enter, Tab, Backspace, Delete, Escape, "
                                             "ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, PageUp, PageDown, Space, "
                                             "or one character)")
                                  .arg(key)));
    const KeyInfo* named = namedKey(key);
    QJsonObject down{{QStringLiteral("type"), QStringLiteral("keyDown")}};
    if (named) {
        down.insert(QStringLiteral("key"), named->name == QLatin1String("Space") ? QStringLiteral(" ") : QString::fromLatin1(named->name));
        down.insert(QStringLiteral("windowsVirtualKeyCode"), named->code);
        if (*named->text)
            down.insert(QStringLiteral("text"), QString::fromLatin1(named->text));
    } else {
        down.insert(QStringLiteral("key"), key);
        down.insert(QStringLiteral("text"), key);
    }
    QJsonObject up = down;
    up.insert(QStringLiteral("type"), QStringLiteral("keyUp"));
    up.remove(QStringLiteral("text"));
    step(
        [this, down, up](auto finish) {
            m_session->call(QStringLiteral("Input.dispatchKeyEvent"), down, [this, up, finish](Expected<QJsonObject> pressed) {
                if (!pressed)
                    return finish(pressed.error());
                m_session->call(QStringLiteral("Input.dispatchKeyEvent"), up, [finish](Expected<QJsonObject> released) {
                    finish(released ? Expected<BrowserStep>(BrowserStep{}) : Expected<BrowserStep>(released.error()));
                });
            });
        },
        true, std::move(done));
}

void BrowserPage::mouseClick(double x, double y, std::function<void(Expected<BrowserStep>)> done)
{
    QJsonObject press{{QStringLiteral("type"), QStringLiteral("mousePressed")}, {QStringLiteral("x"), x},
                      {QStringLiteral("y"), y}, {QStringLiteral("button"), QStringLiteral("left")},
                      {QStringLiteral("clickCount"), 1}};
    QJsonObject release = press;
    release.insert(QStringLiteral("type"), QStringLiteral("mouseReleased"));
    m_session->call(QStringLiteral("Input.dispatchMouseEvent"), press, [this, release, done](Expected<QJsonObject> pressed) {
        if (!pressed)
            return done(pressed.error());
        m_session->call(QStringLiteral("Input.dispatchMouseEvent"), release, [done](Expected<QJsonObject> released) {
            done(released ? Expected<BrowserStep>(BrowserStep{}) : Expected<BrowserStep>(released.error()));
        });
    });
}

void BrowserPage::step(Action action, bool settleAfter, Done finished)
{
    if (!m_session)
        return finished(makeError(QStringLiteral("the browser session is gone")));
    // A page that crashed or was closed during the step fails it with why, whatever its calls
    // made of that (the wait for a load takes a failed poll for the end of the load).
    const int losses = m_session->pageLosses();
    const QPointer<BrowserSession> session = m_session;
    const Done done = [session, losses, finished](Expected<BrowserStep> step) {
        if (session && session->pageLosses() != losses)
            return finished(makeError(session->lastPageLoss()));
        finished(std::move(step));
    };
    readState([this, action, settleAfter, losses, done](Expected<PageState> before) {
        if (!before)
            return done(before.error());
        action([this, before = before.value(), settleAfter, losses, done](Expected<BrowserStep> acted) {
            if (!acted)
                return done(acted.error());
            const auto report = [this, before, acted, losses, done] {
                if (!m_session || m_session->pageLosses() != losses)
                    return done(makeError(QStringLiteral("the browser session is gone")));
                readState([before, acted, done](Expected<PageState> after) {
                    BrowserStep result = acted.value();
                    result.before = before;
                    result.after = after ? after.value() : before;
                    done(result);
                });
            };
            if (settleAfter)
                QTimer::singleShot(kSettlePollMs, this, [this, report] { settle(kSettleLimitPolls, report); });
            else
                report();
        });
    });
}

void BrowserPage::settle(int polls, std::function<void()> done)
{
    evaluate(QStringLiteral("document.readyState"), [this, polls, done](Expected<QJsonValue> state) {
        if (!state || state.value().toString() == QLatin1String("complete") || polls <= 0)
            return done();
        QTimer::singleShot(kSettlePollMs, this, [this, polls, done] { settle(polls - 1, done); });
    });
}

void BrowserPage::readState(std::function<void(Expected<PageState>)> done)
{
    evaluate(QStringLiteral("[location.href, document.title]"), [done](Expected<QJsonValue> value) {
        if (!value)
            return done(value.error());
        const QJsonArray pair = value.value().toArray();
        done(PageState{pair.at(0).toString(), pair.at(1).toString()});
    });
}

void BrowserPage::evaluate(const QString& expression, std::function<void(Expected<QJsonValue>)> done)
{
    if (!m_session)
        return done(makeError(QStringLiteral("the browser session is gone")));
    const QJsonObject params{{QStringLiteral("expression"), expression}, {QStringLiteral("returnByValue"), true}};
    m_session->call(QStringLiteral("Runtime.evaluate"), params, [done](Expected<QJsonObject> result) {
        if (!result)
            return done(result.error());
        if (result.value().contains(QStringLiteral("exceptionDetails")))
            return done(makeError(QStringLiteral("the page's script failed: %1")
                                      .arg(result.value().value(QStringLiteral("exceptionDetails")).toObject().value(QStringLiteral("text")).toString())));
        done(result.value().value(QStringLiteral("result")).toObject().value(QStringLiteral("value")));
    });
}

} // namespace sbw
