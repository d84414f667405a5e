#include "approval/Policy.h"

#include "approval/PolicyCommands.h"
#include "base/DataPaths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>
#include <cmath>
#include <fnmatch.h>

namespace sbw {
namespace {

bool isFileAction(ActionKind kind)
{
    return kind == ActionKind::FileWrite || kind == ActionKind::Upload || kind == ActionKind::Download
        || kind == ActionKind::FileDelete;
}

/// Whether the policy judges `request` command by command (a shell line or sh script).
bool isShellCode(const ActionRequest& request)
{
    return request.kind == ActionKind::Exec ||
           (request.kind == ActionKind::Run && request.language == QLatin1String("sh"));
}

/// The whole subject, for the actions not judged command by command (and PolicyRule::matches()).
QString subjectOf(const ActionRequest& request)
{
    if (request.kind == ActionKind::Exec || request.kind == ActionKind::Run)
        return commandWithEnvironment(request);
    if (isFileAction(request.kind) || request.kind == ActionKind::Browse)
        return request.path; // browse: the page's address
    return request.sandbox;
}

/// `value` as JSON text, for error messages: "\"maybe\"", 3, null.
QString jsonText(const QJsonValue& value)
{
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(array.mid(1, array.size() - 2));
}

/// "3:14" for the character at `offset` of `text`.
QString lineAndColumn(const QByteArray& text, int offset)
{
    const QByteArray before = text.left(offset);
    const int line = int(before.count('\n')) + 1;
    const int column = int(offset - (before.lastIndexOf('\n') + 1)) + 1;
    return QStringLiteral("%1:%2").arg(line).arg(column);
}

Expected<QList<quint16>> parsePorts(const QJsonValue& value, const QString& where)
{
    if (!value.isArray() || value.toArray().isEmpty())
        return makeError(
            QStringLiteral("%1: must be a non-empty list of ports (1–65535)").arg(where));
    QList<quint16> ports;
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const double number = array[i].toDouble(-1);
        if (!array[i].isDouble() || number != std::floor(number) || number < 1 || number > 65535)
            return makeError(QStringLiteral("%1[%2]: %3 is not a port (1–65535)")
                                 .arg(where)
                                 .arg(i)
                                 .arg(jsonText(array[i])));
        ports.append(quint16(number));
    }
    return ports;
}

Expected<QList<PolicyRule>> parseRules(const QJsonValue& value, const QString& where)
{
    if (!value.isArray())
        return makeError(QStringLiteral("%1: must be a list of rules").arg(where));
    QList<PolicyRule> rules;
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString at = QStringLiteral("%1[%2]").arg(where).arg(i);
        if (!array[i].isObject())
            return makeError(QStringLiteral("%1: a rule must be an object").arg(at));
        const QJsonObject object = array[i].toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (it.key() != QLatin1String("kinds") && it.key() != QLatin1String("pattern")
                && it.key() != QLatin1String("ports") && it.key() != QLatin1String("decision"))
                return makeError(QStringLiteral("%1.%2: unknown field (expected kinds, pattern, ports, decision)")
                                     .arg(at, it.key()));
        }
        PolicyRule rule;
        if (object.contains(QLatin1String("kinds"))) {
            const QJsonValue kinds = object.value(QLatin1String("kinds"));
            if (!kinds.isArray())
                return makeError(QStringLiteral("%1.kinds: must be a list of action kinds").arg(at));
            const QJsonArray kindArray = kinds.toArray();
            for (qsizetype k = 0; k < kindArray.size(); ++k) {
                const auto kind = actionKindFromName(kindArray[k].toString());
                if (!kindArray[k].isString() || !kind || !policyActionKinds().contains(*kind))
                    return makeError(QStringLiteral("%1.kinds[%2]: %3 is not an action kind (%4)")
                                         .arg(at)
                                         .arg(k)
                                         .arg(jsonText(kindArray[k]), policyActionKindNames()));
                rule.kinds.append(*kind);
            }
            if (rule.kinds.contains(ActionKind::Network) && rule.kinds.size() != 1)
                return makeError(
                    QStringLiteral("%1.kinds: network rules name only the kind network").arg(at));
        }
        const bool isNetworkRule = rule.kinds == QList<ActionKind>{ActionKind::Network};
        if (object.contains(QLatin1String("pattern"))) {
            const QJsonValue pattern = object.value(QLatin1String("pattern"));
            if (!pattern.isString() || pattern.toString().isEmpty())
                return makeError(QStringLiteral("%1.pattern: must be a non-empty string").arg(at));
            rule.pattern = pattern.toString();
        }
        if (isNetworkRule) {
            if (auto parsed = NetworkPattern::parse(rule.pattern); !parsed)
                return makeError(QStringLiteral("%1.pattern: %2").arg(at, parsed.error().message));
        }
        if (object.contains(QLatin1String("ports"))) {
            if (!isNetworkRule)
                return makeError(
                    QStringLiteral("%1.ports: only network rules (kinds [\"network\"]) have ports")
                        .arg(at));
            auto ports =
                parsePorts(object.value(QLatin1String("ports")), at + QStringLiteral(".ports"));
            if (!ports)
                return ports.error();
            rule.ports = ports.value();
        }
        const QJsonValue decision = object.value(QLatin1String("decision"));
        if (decision.isUndefined())
            return makeError(QStringLiteral("%1.decision: missing (allow, ask or deny)").arg(at));
        const auto parsed = policyDecisionFromName(decision.toString());
        if (!decision.isString() || !parsed)
            return makeError(QStringLiteral("%1.decision: %2 is not allow, ask or deny")
                                 .arg(at, jsonText(decision)));
        rule.decision = *parsed;
        rules.append(rule);
    }
    return rules;
}

QJsonArray rulesToJson(const QList<PolicyRule>& rules)
{
    QJsonArray array;
    for (const PolicyRule& rule : rules) {
        QJsonObject object;
        if (!rule.kinds.isEmpty()) {
            QJsonArray kinds;
            for (ActionKind kind : rule.kinds)
                kinds.append(actionKindName(kind));
            object.insert(QLatin1String("kinds"), kinds);
        }
        object.insert(QLatin1String("pattern"), rule.pattern);
        if (!rule.ports.isEmpty()) {
            QJsonArray ports;
            for (quint16 port : rule.ports)
                ports.append(int(port));
            object.insert(QLatin1String("ports"), ports);
        }
        object.insert(QLatin1String("decision"), policyDecisionName(rule.decision));
        array.append(object);
    }
    return array;
}

/// `policy rule 3 (exec "rm *")`, `policy rule 1 of workspace 'demo' (any "*")`
QString ruleDescription(const std::optional<PolicyRule>& rule, int number, const QString& workspace)
{
    if (!rule)
        return {};
    QStringList kinds;
    for (ActionKind kind : rule->kinds)
        kinds.append(actionKindName(kind));
    const QString where =
        workspace.isEmpty() ? QString() : QStringLiteral(" of workspace '%1'").arg(workspace);
    QStringList ports;
    for (quint16 port : rule->ports)
        ports.append(QString::number(port));
    return QStringLiteral("policy rule %1%2 (%3 %4%5)")
        .arg(number)
        .arg(where, kinds.isEmpty() ? QStringLiteral("any") : kinds.join(QLatin1Char(',')),
             jsonText(rule->pattern),
             ports.isEmpty() ? QString()
                             : QStringLiteral(" ports ") + ports.join(QLatin1Char(',')));
}

} // namespace

QString policyDecisionName(PolicyDecision decision)
{
    switch (decision) {
    case PolicyDecision::Allow:
        return QStringLiteral("allow");
    case PolicyDecision::Ask:
        return QStringLiteral("ask");
    case PolicyDecision::Deny:
        return QStringLiteral("deny");
    }
    return {};
}

std::optional<PolicyDecision> policyDecisionFromName(const QString& name)
{
    for (PolicyDecision decision : {PolicyDecision::Allow, PolicyDecision::Ask, PolicyDecision::Deny}) {
        if (name == policyDecisionName(decision))
            return decision;
    }
    return std::nullopt;
}

bool PolicyRule::matches(const ActionRequest& request) const
{
    if (request.kind == ActionKind::Network)
        return matchesDestination(request.destination);
    return covers(request.kind) && matchesText(subjectOf(request));
}

bool PolicyRule::coversPort(quint16 port) const
{
    return ports.isEmpty() ? port == 80 || port == 443 : ports.contains(port);
}

std::optional<NetworkPattern> PolicyRule::networkPattern() const
{
    auto parsed = NetworkPattern::parse(pattern);
    return parsed ? std::optional(parsed.value()) : std::nullopt;
}

bool PolicyRule::matchesDestination(const NetworkDestination& destination) const
{
    if (!covers(ActionKind::Network) || !coversPort(destination.port))
        return false;
    const auto parsed = networkPattern();
    return parsed && parsed->matches(destination);
}

bool PolicyRule::matchesText(const QString& text) const
{
    return ::fnmatch(pattern.toUtf8().constData(), text.toUtf8().constData(), 0) == 0;
}

Expected<void> Policy::copyWorkspace(const QString& path, const QString& from, const QString& to)
{
    auto policy = load(path);
    if (!policy)
        return policy.error();
    const bool hasRules = policy->workspaceRules.contains(from);
    const bool hasPause = policy->workspacePauseWhileWaiting.contains(from);
    if (!hasRules && !hasPause)
        return {};
    if (hasRules)
        policy->workspaceRules.insert(to, policy->workspaceRules.value(from));
    if (hasPause)
        policy->workspacePauseWhileWaiting.insert(to, policy->workspacePauseWhileWaiting.value(from));
    return policy->save(path);
}

QString Policy::defaultPath()
{
    return paths::dataDir() + QStringLiteral("/policy.json");
}

QList<ActionKind> policyActionKinds()
{
    QList<ActionKind> kinds = allActionKinds();
    kinds.removeAll(ActionKind::Approval);
    return kinds;
}

QString policyActionKindNames()
{
    QStringList names;
    for (ActionKind kind : policyActionKinds())
        names.append(actionKindName(kind));
    return names.join(QStringLiteral(", "));
}

QString PolicyVerdict::ruleText() const
{
    return ruleDescription(rule, ruleNumber, workspace);
}

QString PolicyVerdict::denialReason() const
{
    const QString reason = QStringLiteral("denied by ") + ruleText();
    return command.isEmpty() ? reason : reason + QStringLiteral(": ") + command;
}

QString CommandVerdict::ruleText() const
{
    return ruleDescription(rule, ruleNumber, workspace);
}

QString CommandVerdict::explanation() const
{
    if (!rule)
        return askedBecause.isEmpty() ? QStringLiteral("no rule: asked") : askedBecause;
    static const QMap<PolicyDecision, QString> kVerbs{{PolicyDecision::Allow, QStringLiteral("allowed")},
                                                      {PolicyDecision::Ask, QStringLiteral("asked")},
                                                      {PolicyDecision::Deny, QStringLiteral("denied")}};
    const QString byRule = QStringLiteral("%1 by %2").arg(kVerbs.value(decision), ruleText());
    return askedBecause.isEmpty() || decision == PolicyDecision::Deny ? byRule
                                                                      : byRule + QStringLiteral("; ") + askedBecause;
}

PolicyVerdict Policy::verdict(const ActionRequest& request) const
{
    PolicyVerdict verdict;
    // The workspace's rules first, then the default ones; the first that matches decides.
    const auto firstMatch = [&](auto matches, auto decided) {
        firstRule(request.sandbox,
                  [&](const PolicyRule& rule, int number, const QString& workspace) {
                      if (!rule.covers(request.kind) || !matches(rule))
                          return false;
                      decided(rule, number, workspace);
                      return true;
                  });
    };
    const auto decideByRule = [&](const PolicyRule& rule, int number, const QString& workspace) {
        verdict.decision = rule.decision;
        verdict.rule = rule;
        verdict.ruleNumber = number;
        verdict.workspace = workspace;
    };
    if (request.kind == ActionKind::Network) { // every actor: the guest's programs connect
        verdict.command = request.destination.display();
        firstMatch(
            [&](const PolicyRule& rule) { return rule.matchesDestination(request.destination); },
            decideByRule);
        return verdict;
    }
    if (request.actor.kind != Actor::Kind::Agent) {
        verdict.decision = PolicyDecision::Allow;
        return verdict;
    }
    if (!isShellCode(request)) {
        firstMatch([&](const PolicyRule& rule) { return rule.matchesText(subjectOf(request)); },
                   decideByRule);
        return verdict;
    }
    for (const PolicyCommand& command : policyCommands(request.command, request.environment)) {
        CommandVerdict judged;
        judged.command = command.text;
        judged.askedBecause = command.askedBecause;
        firstMatch(
            [&](const PolicyRule& rule) {
                if (rule.decision ==
                    PolicyDecision::Allow) // the canonical form only, and never the unseen
                    return command.askedBecause.isEmpty() && rule.matchesText(command.text);
                return std::any_of(command.forms.begin(), command.forms.end(),
                                   [&](const QString& form) { return rule.matchesText(form); });
            },
            [&](const PolicyRule& rule, int number, const QString& workspace) {
                judged.decision = rule.decision;
                judged.rule = rule;
                judged.ruleNumber = number;
                judged.workspace = workspace;
            });
        verdict.commands.append(judged);
    }
    // Any denied command denies the line; else any asked one asks; else it is allowed.
    for (PolicyDecision decision :
         {PolicyDecision::Deny, PolicyDecision::Ask, PolicyDecision::Allow}) {
        const auto deciding =
            std::find_if(verdict.commands.begin(), verdict.commands.end(),
                         [&](const CommandVerdict& c) { return c.decision == decision; });
        if (deciding == verdict.commands.end())
            continue;
        verdict.decision = decision;
        verdict.rule = deciding->rule;
        verdict.ruleNumber = deciding->ruleNumber;
        verdict.workspace = deciding->workspace;
        verdict.command = deciding->command;
        break;
    }
    return verdict;
}

bool Policy::firstRule(
    const QString& workspace,
    const std::function<bool(const PolicyRule&, int, const QString&)>& take) const
{
    const auto found = workspaceRules.constFind(workspace);
    if (found != workspaceRules.constEnd()) {
        for (qsizetype i = 0; i < found->size(); ++i) {
            if (take(found->at(i), int(i) + 1, workspace))
                return true;
        }
    }
    for (qsizetype i = 0; i < defaultRules.size(); ++i) {
        if (take(defaultRules[i], int(i) + 1, QString()))
            return true;
    }
    return false;
}

std::optional<QString> Policy::refusedAddress(const ActionRequest& request) const
{
    const NetworkDestination& destination = request.destination;
    const bool literal = destination.isLiteralAddress();
    const QList<QHostAddress> addresses =
        literal ? QList<QHostAddress>{QHostAddress(destination.host)} : destination.addresses;
    for (const QHostAddress& address : addresses) {
        const auto range = specialAddressRange(address);
        if (!range)
            continue;
        // The first network rule that names the address explicitly decides.
        QString naming;
        bool allowed = false;
        firstRule(request.sandbox,
                  [&](const PolicyRule& rule, int number, const QString& workspace) {
                      if (!rule.covers(ActionKind::Network) || !rule.coversPort(destination.port))
                          return false;
                      const auto pattern = rule.networkPattern();
                      if (!pattern || !pattern->namesExplicitly(destination, address))
                          return false;
                      allowed = rule.decision == PolicyDecision::Allow;
                      naming = ruleDescription(rule, number, workspace);
                      return true;
                  });
        if (allowed)
            continue;
        const QString where =
            literal ? QStringLiteral("%1 is in a special range (%2)").arg(destination.host, *range)
                    : QStringLiteral("%1 resolves to %2 (%3)")
                          .arg(destination.host, address.toString(), *range);
        if (naming.isEmpty())
            return QStringLiteral("%1; no rule names that %2 or range")
                .arg(where, literal ? QStringLiteral("address") : QStringLiteral("host"));
        return QStringLiteral("%1; %2 does not allow it").arg(where, naming);
    }
    return std::nullopt;
}

void Policy::setDestinationRule(const QString& workspace, const NetworkDestination& destination,
                                PolicyDecision decision)
{
    const PolicyRule rule{{ActionKind::Network}, destination.host, decision, {destination.port}};
    QList<PolicyRule>& rules = workspace.isEmpty() ? defaultRules : workspaceRules[workspace];
    rules.removeIf([&](const PolicyRule& r) {
        return r.kinds == rule.kinds && r.pattern == rule.pattern && r.ports == rule.ports;
    });
    rules.prepend(rule);
}

Expected<Policy> Policy::load(const QString& path, IfMissing ifMissing)
{
    QFile file(path);
    if (!file.exists()) {
        if (ifMissing == IfMissing::Error)
            return makeError(QStringLiteral("the policy file %1 does not exist").arg(path));
        return Policy{};
    }
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("cannot read the policy file %1: %2").arg(path, file.errorString()));
    return parse(file.readAll(), path);
}

Expected<Policy> Policy::parse(const QByteArray& json, const QString& source)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return makeError(QStringLiteral("%1:%2: %3").arg(source, lineAndColumn(json, error.offset), error.errorString()));
    if (!document.isObject())
        return makeError(QStringLiteral("%1: the policy must be a JSON object").arg(source));
    const QJsonObject root = document.object();
    for (auto it = root.begin(); it != root.end(); ++it) {
        if (it.key() != QLatin1String("version") && it.key() != QLatin1String("default")
            && it.key() != QLatin1String("workspaces") && it.key() != QLatin1String("pauseWhileWaiting"))
            return makeError(
                QStringLiteral("%1: %2: unknown field (expected version, pauseWhileWaiting, default, workspaces)")
                    .arg(source, it.key()));
    }
    if (root.value(QLatin1String("version")).toInt(-1) != kVersion)
        return makeError(QStringLiteral("%1: version: must be %2").arg(source).arg(kVersion));
    Policy policy;
    if (root.contains(QLatin1String("pauseWhileWaiting"))) {
        const QJsonValue pause = root.value(QLatin1String("pauseWhileWaiting"));
        if (!pause.isBool())
            return makeError(QStringLiteral("%1: pauseWhileWaiting: must be true or false").arg(source));
        policy.pauseWhileWaiting = pause.toBool();
    }
    if (root.contains(QLatin1String("default"))) {
        auto rules = parseRules(root.value(QLatin1String("default")), QStringLiteral("default"));
        if (!rules)
            return makeError(QStringLiteral("%1: %2").arg(source, rules.error().message));
        policy.defaultRules = rules.value();
    }
    if (root.contains(QLatin1String("workspaces"))) {
        const QJsonValue workspaces = root.value(QLatin1String("workspaces"));
        if (!workspaces.isObject())
            return makeError(QStringLiteral("%1: workspaces: must map workspace names to rule lists").arg(source));
        const QJsonObject byName = workspaces.toObject();
        for (auto it = byName.begin(); it != byName.end(); ++it) {
            const QString at = QStringLiteral("workspaces.%1").arg(it.key());
            QJsonValue ruleList = it.value();
            if (it.value().isObject()) { // {"rules": [...], "pauseWhileWaiting": true}
                const QJsonObject settings = it.value().toObject();
                for (auto field = settings.begin(); field != settings.end(); ++field) {
                    if (field.key() != QLatin1String("rules") && field.key() != QLatin1String("pauseWhileWaiting"))
                        return makeError(QStringLiteral("%1: %2.%3: unknown field (expected rules, pauseWhileWaiting)")
                                             .arg(source, at, field.key()));
                }
                if (settings.contains(QLatin1String("pauseWhileWaiting"))) {
                    const QJsonValue pause = settings.value(QLatin1String("pauseWhileWaiting"));
                    if (!pause.isBool())
                        return makeError(QStringLiteral("%1: %2.pauseWhileWaiting: must be true or false").arg(source, at));
                    policy.workspacePauseWhileWaiting.insert(it.key(), pause.toBool());
                }
                if (!settings.contains(QLatin1String("rules")))
                    continue;
                ruleList = settings.value(QLatin1String("rules"));
            }
            auto rules = parseRules(ruleList, it.value().isObject() ? at + QStringLiteral(".rules") : at);
            if (!rules)
                return makeError(QStringLiteral("%1: %2").arg(source, rules.error().message));
            policy.workspaceRules.insert(it.key(), rules.value());
        }
    }
    return policy;
}

QByteArray Policy::toJson() const
{
    QJsonObject root;
    root.insert(QLatin1String("version"), kVersion);
    root.insert(QLatin1String("pauseWhileWaiting"), pauseWhileWaiting);
    root.insert(QLatin1String("default"), rulesToJson(defaultRules));
    QJsonObject workspaces;
    for (auto it = workspaceRules.begin(); it != workspaceRules.end(); ++it)
        workspaces.insert(it.key(), rulesToJson(it.value()));
    // A workspace with its own pause setting is an object; its rules, if any, go inside.
    for (auto it = workspacePauseWhileWaiting.begin(); it != workspacePauseWhileWaiting.end(); ++it) {
        QJsonObject settings{{QLatin1String("pauseWhileWaiting"), it.value()}};
        if (workspaceRules.contains(it.key()))
            settings.insert(QLatin1String("rules"), rulesToJson(workspaceRules.value(it.key())));
        workspaces.insert(it.key(), settings);
    }
    root.insert(QLatin1String("workspaces"), workspaces);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

Expected<void> Policy::save(const QString& path) const
{
    if (!paths::ensureDir(QFileInfo(path).absolutePath()))
        return makeError(QStringLiteral("cannot create the folder of the policy file %1").arg(path));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(toJson()) < 0 || !file.commit())
        return makeError(QStringLiteral("cannot write the policy file %1: %2").arg(path, file.errorString()));
    return {};
}

} // namespace sbw
