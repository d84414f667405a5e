// The browser tools: an agent's steps in a workspace's browser (core/browser), each through
// the policy as a `browse` action whose subject is the page's address, and each a command-log
// row with the address before and after it.
#include "mcp/McpTools.h"

#include "base/Async.h"
#include "base/DataPaths.h"
#include "browser/BrowserHold.h"
#include "browser/BrowserPage.h"
#include "browser/BrowserSession.h"
#include "mcp/McpToolSchema.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QUuid>

namespace sbw {

using namespace mcp;

namespace {

/// How long one browser step may take in all: a page load under TCG, plus starting the browser.
constexpr std::chrono::seconds kStepTimeout{240};

using StepStart = std::function<void(BrowserPage&, BrowserPage::Done)>;

/// Runs one step on the session's thread and waits for it (worker thread).
Expected<BrowserStep> runStep(const std::shared_ptr<BrowserSession>& session, StepStart start)
{
    return callAndWait<BrowserStep>(
        session.get(),
        [session, start](std::function<void(Expected<BrowserStep>)> reply) {
            auto* page = new BrowserPage(session.get(), session.get());
            start(*page, [page, reply](Expected<BrowserStep> step) {
                page->deleteLater();
                reply(std::move(step));
            });
        },
        kStepTimeout);
}

QJsonObject pageOutputSchema(const QJsonObject& more = {})
{
    QJsonObject properties{
        {QStringLiteral("workspace"), workspaceProperty()},
        {QStringLiteral("url_before"), stringSchema(QStringLiteral("The page's address before the step."))},
        {QStringLiteral("url"), stringSchema(QStringLiteral("The page's address after the step (a click may navigate)."))},
        {QStringLiteral("title"), stringSchema(QStringLiteral("The page's title after the step."))}};
    for (auto it = more.begin(); it != more.end(); ++it)
        properties.insert(it.key(), it.value());
    return objectSchema(properties, {QStringLiteral("workspace"), QStringLiteral("url"), QStringLiteral("title")});
}

/// Saves a screenshot beside the log (dataDir()/browser/<id>/screenshot.png) for the row;
/// returns its folder, empty when it could not be written.
QString keepScreenshot(const QByteArray& png)
{
    const QString folder = paths::dataDir() + QStringLiteral("/browser/") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    QFile file(folder + QStringLiteral("/screenshot.png"));
    if (!QDir().mkpath(folder) || !file.open(QIODevice::WriteOnly) || file.write(png) != png.size())
        return {};
    return folder;
}

/// A browser tool: `describe` makes the row's command from the arguments ("click e3"),
/// `start` the step; `navigates` says whether the subject is the address it goes to (else:
/// the page it acts on, read from the browser before the gate sees the request).
struct BrowserToolSpec
{
    QString name;
    QString title;
    QString description;
    QJsonObject inputs;
    QStringList required;
    QJsonObject outputs;
    std::function<Expected<QString>(const Arguments&)> describe;
    std::function<StepStart(const Arguments&)> start;
    bool navigates = false;
};

McpToolResult stepResult(const McpCall& call, const Expected<BrowserStep>& step)
{
    if (!step)
        return McpToolResult::failure(step.error().message);
    McpToolResult result;
    const BrowserStep& done = step.value();
    result.structured = {{QStringLiteral("workspace"), call.request.sandbox},
                         {QStringLiteral("url_before"), done.before.url},
                         {QStringLiteral("url"), done.after.url},
                         {QStringLiteral("title"), done.after.title}};
    result.end.urlBefore = done.before.url;
    result.end.urlAfter = done.after.url;
    if (!done.text.isNull())
        result.structured.insert(QStringLiteral("text"), done.text);
    if (!done.png.isEmpty()) {
        result.structured.insert(QStringLiteral("width"), done.width);
        result.structured.insert(QStringLiteral("height"), done.height);
        result.content.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("image")},
                                          {QStringLiteral("data"), QString::fromLatin1(done.png.toBase64())},
                                          {QStringLiteral("mimeType"), QStringLiteral("image/png")}});
        result.end.artifactsDir = keepScreenshot(done.png);
    }
    return result;
}

/// A step refused because a person holds the browser: a denied row on the page the step would
/// have acted on (a navigation's page before it is not read: the browser is the person's).
McpToolResult heldRefusal(const McpCall& call, const QString& holder, bool navigates)
{
    McpToolResult result = McpToolResult::denied(
        QStringLiteral("%1 has taken over the browser in the window; browser steps are refused until they hand it back")
            .arg(holder));
    if (!navigates)
        result.end.urlBefore = result.end.urlAfter = call.request.path;
    return result;
}

McpTool browserTool(std::shared_ptr<McpSandboxes> sandboxes, BrowserToolSpec spec)
{
    McpTool tool;
    tool.name = spec.name;
    tool.title = spec.title;
    tool.description = spec.description;
    tool.kind = ActionKind::Browse;
    QJsonObject inputs = spec.inputs;
    inputs.insert(QStringLiteral("workspace"), workspaceProperty());
    tool.inputSchema = objectSchema(inputs, QStringList{QStringLiteral("workspace")} + spec.required);
    tool.outputSchema = spec.outputs.isEmpty() ? pageOutputSchema() : spec.outputs;
    tool.prepare = [spec](const QJsonObject& json) -> Expected<ActionRequest> {
        const Arguments arguments(json);
        auto request = workspaceRequest(arguments, ActionKind::Browse);
        auto command = spec.describe(arguments);
        if (!request)
            return request.error();
        if (!command)
            return command.error();
        request.value().command = command.value();
        if (spec.navigates)
            request.value().path = arguments.json().value(QStringLiteral("url")).toString();
        return request;
    };
    if (!spec.navigates)
        tool.resolve = [sandboxes](const ActionRequest& prepared) -> Expected<ActionRequest> {
            auto session = sandboxes->browser(prepared.sandbox);
            if (!session)
                return session.error();
            auto state = runStep(session.value(), [](BrowserPage& page, BrowserPage::Done done) { page.current(std::move(done)); });
            if (!state)
                return state.error();
            ActionRequest request = prepared;
            request.path = state.value().before.url;
            request.command += QStringLiteral(" on ") + request.path;
            return request;
        };
    tool.run = [sandboxes, spec](const McpCall& call) {
        if (const QString holder = browser_hold::heldBy(call.request.sandbox); !holder.isEmpty())
            return heldRefusal(call, holder, spec.navigates);
        auto session = sandboxes->browser(call.request.sandbox);
        if (!session)
            return McpToolResult::failure(session.error().message);
        return stepResult(call, runStep(session.value(), spec.start(Arguments(call.arguments))));
    };
    return tool;
}

} // namespace

QList<McpTool> mcpBrowserTools(std::shared_ptr<McpSandboxes> sandboxes)
{
    const QString where = QStringLiteral(
        " Works on the workspace's headless browser (workspaces made from the browser image), "
        "which it starts when none runs; a person may be watching it, and while they have taken "
        "it over the call is refused.");
    const QJsonObject refProperty = stringSchema(QStringLiteral("An element reference (e1, e2, …) from browser_text."));
    QList<McpTool> tools;
    tools << browserTool(
        sandboxes,
        {QStringLiteral("browser_navigate"), QStringLiteral("Open a page in a workspace's browser"),
         QStringLiteral("Loads a page (http, https or file address) and waits until it has loaded. The policy "
                        "judges the address (action kind browse); with an allowlist network the browser's "
                        "requests also pass the network rules.") + where,
         {{QStringLiteral("url"), stringSchema(QStringLiteral("The address to load."))}},
         {QStringLiteral("url")}, {},
         [](const Arguments& a) -> Expected<QString> {
             auto url = a.requiredString(QStringLiteral("url"));
             if (!url)
                 return url.error();
             if (!BrowserPage::isNavigableUrl(url.value()))
                 return makeError(QStringLiteral("url must be an http, https or file address"));
             return QStringLiteral("navigate %1").arg(url.value());
         },
         [](const Arguments& a) -> StepStart {
             const QString url = a.json().value(QStringLiteral("url")).toString();
             return [url](BrowserPage& page, BrowserPage::Done done) { page.navigate(url, std::move(done)); };
         },
         true});
    tools << browserTool(
        sandboxes,
        {QStringLiteral("browser_back"), QStringLiteral("Go back in a workspace's browser"),
         QStringLiteral("Goes back to the previous page of the browser's history.") + where, {}, {}, {},
         [](const Arguments&) -> Expected<QString> { return QStringLiteral("back"); },
         [](const Arguments&) -> StepStart { return [](BrowserPage& page, BrowserPage::Done done) { page.back(std::move(done)); }; }});
    tools << browserTool(
        sandboxes,
        {QStringLiteral("browser_text"), QStringLiteral("Read the page in a workspace's browser"),
         QStringLiteral("Returns the page's visible text, one line per block, with each interactive element "
                        "(link, button, field) as a line `[eN] role \"label\"`: pass eN to browser_click or "
                        "browser_type.") + where, {}, {},
         pageOutputSchema({{QStringLiteral("text"), stringSchema(QStringLiteral("The visible text with element references."))}}),
         [](const Arguments&) -> Expected<QString> { return QStringLiteral("read text"); },
         [](const Arguments&) -> StepStart { return [](BrowserPage& page, BrowserPage::Done done) { page.text(std::move(done)); }; }});
    tools << browserTool(
        sandboxes,
        {QStringLiteral("browser_screenshot"), QStringLiteral("Screenshot the page in a workspace's browser"),
         QStringLiteral("Returns the visible part of the page as a PNG image (1280 × 800).") + where, {}, {},
         pageOutputSchema({{QStringLiteral("width"), integerSchema(QStringLiteral("Width of the PNG, pixels."))},
                           {QStringLiteral("height"), integerSchema(QStringLiteral("Height of the PNG, pixels."))}}),
         [](const Arguments&) -> Expected<QString> { return QStringLiteral("screenshot"); },
         [](const Arguments&) -> StepStart { return [](BrowserPage& page, BrowserPage::Done done) { page.screenshot(std::move(done)); }; }});
    tools << browserTool(
        sandboxes,
        {QStringLiteral("browser_click"), QStringLiteral("Click in a workspace's browser"),
         QStringLiteral("Clicks an element by its reference from browser_text, or a point (x, y in CSS pixels "
                        "of the viewport), with a real mouse event, then waits for a page it loads.") + where,
         {{QStringLiteral("ref"), refProperty},
          {QStringLiteral("x"), integerSchema(QStringLiteral("Viewport x, CSS pixels (with y, instead of ref)."), 0, 10000)},
          {QStringLiteral("y"), integerSchema(QStringLiteral("Viewport y, CSS pixels (with x, instead of ref)."), 0, 10000)}},
         {}, {},
         [](const Arguments& a) -> Expected<QString> {
             const QJsonObject& json = a.json();
             if (json.contains(QStringLiteral("ref"))) {
                 auto ref = a.requiredString(QStringLiteral("ref"));
                 if (!ref)
                     return ref.error();
                 if (!BrowserPage::isReference(ref.value()))
                     return makeError(QStringLiteral("ref must be an element reference (e1, e2, … from browser_text)"));
                 return QStringLiteral("click %1").arg(ref.value());
             }
             auto x = a.integer(QStringLiteral("x"), -1, 0, 10000);
             auto y = a.integer(QStringLiteral("y"), -1, 0, 10000);
             if (!x)
                 return x.error();
             if (!y)
                 return y.error();
             if (x.value() < 0 || y.value() < 0)
                 return makeError(QStringLiteral("give ref, or both x and y"));
             return QStringLiteral("click at %1,%2").arg(x.value()).arg(y.value());
         },
         [](const Arguments& a) -> StepStart {
             const QJsonObject json = a.json();
             if (json.contains(QStringLiteral("ref"))) {
                 const QString ref = json.value(QStringLiteral("ref")).toString();
                 return [ref](BrowserPage& page, BrowserPage::Done done) { page.click(ref, std::move(done)); };
             }
             const double x = json.value(QStringLiteral("x")).toDouble();
             const double y = json.value(QStringLiteral("y")).toDouble();
             return [x, y](BrowserPage& page, BrowserPage::Done done) { page.clickAt(x, y, std::move(done)); };
         }});
    tools << browserTool(
        sandboxes,
        {QStringLiteral("browser_type"), QStringLiteral("Type in a workspace's browser"),
         QStringLiteral("Types text into the focused element, or into the element `ref` after clicking it.") + where,
         {{QStringLiteral("text"), stringSchema(QStringLiteral("The text to type."))}, {QStringLiteral("ref"), refProperty}},
         {QStringLiteral("text")}, {},
         [](const Arguments& a) -> Expected<QString> {
             auto text = a.requiredString(QStringLiteral("text"));
             auto ref = a.string(QStringLiteral("ref"), QString());
             if (!text)
                 return text.error();
             if (!ref)
                 return ref.error();
             if (!ref.value().isEmpty() && !BrowserPage::isReference(ref.value()))
                 return makeError(QStringLiteral("ref must be an element reference (e1, e2, … from browser_text)"));
             return BrowserPage::typeCommand(text.value(), ref.value());
         },
         [](const Arguments& a) -> StepStart {
             const QString text = a.json().value(QStringLiteral("text")).toString();
             const QString ref = a.json().value(QStringLiteral("ref")).toString();
             return [text, ref](BrowserPage& page, BrowserPage::Done done) { page.type(text, ref, std::move(done)); };
         }});
    tools << browserTool(
        sandboxes,
        {QStringLiteral("browser_key"), QStringLiteral("Press a key in a workspace's browser"),
         QStringLiteral("Presses one key: Enter, Tab, Backspace, Delete, Escape, ArrowUp, ArrowDown, ArrowLeft, "
                        "ArrowRight, Home, End, PageUp, PageDown, Space, or one character.") + where,
         {{QStringLiteral("key"), stringSchema(QStringLiteral("The key's name, or one character."))}},
         {QStringLiteral("key")}, {},
         [](const Arguments& a) -> Expected<QString> {
             auto key = a.requiredString(QStringLiteral("key"));
             if (!key)
                 return key.error();
             if (!BrowserPage::isKnownKey(key.value()))
                 return makeError(QStringLiteral("key must be a key name (Enter, Tab, …) or one character"));
             return QStringLiteral("key %1").arg(key.value());
         },
         [](const Arguments& a) -> StepStart {
             const QString key = a.json().value(QStringLiteral("key")).toString();
             return [key](BrowserPage& page, BrowserPage::Done done) { page.key(key, std::move(done)); };
         }});
    return tools;
}

} // namespace sbw
