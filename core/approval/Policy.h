#pragma once

#include "action/ActionGate.h"
#include "action/ActionRecord.h"
#include "base/Expected.h"
#include "network/NetworkPattern.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

#include <functional>
#include <optional>

namespace sbw {

/// What a policy rule decides about an action.
enum class PolicyDecision
{
    Allow, ///< runs without asking (GateDecision::approval = Auto)
    Ask,   ///< waits for a person's decision (ApprovalQueue)
    Deny,  ///< never runs (Auto)
};
QString policyDecisionName(PolicyDecision decision); ///< "allow", "ask", "deny"
std::optional<PolicyDecision> policyDecisionFromName(const QString& name);

/// The kinds a rule may name: every ActionKind but Approval (a person's decision is not an
/// action of its own).
QList<ActionKind> policyActionKinds();
/// Their names for messages: "exec, run, file-write, …, list".
QString policyActionKindNames();

/// One rule: the action kinds it covers (empty: every kind) and a glob on the action's subject.
///
/// Patterns have fnmatch(3) semantics without flags: `*` matches any text, including `/`,
/// spaces and newlines; `?` one character; `[abc]`, `[a-z]`, `[!a]` one of a set; `\` takes
/// the next character literally. The whole subject must match.
///
/// exec and run with language sh: the subject is each command of the line on its own
/// (policyCommands(): every simple command anywhere in the syntax tree, wrappers seen through,
/// shells' code judged too). An allow rule matches a command's canonical form only
/// ("NAME=value … program arguments redirections", PolicyCommand::text; `rm *` matches
/// "rm -rf /" but not "sudo rm x" nor "A=1 rm x"); a deny or ask rule matches any of its
/// spellings (PolicyCommand::forms): `rm *` also matches "A=1 /bin/rm x". Other actions: the
/// subject is the script text for run (python), the guest path for file actions (file-write,
/// upload, download, file-delete) and the workspace name for every other action.
///
/// Network rules (kinds exactly ["network"]) are different: `pattern` is a NetworkPattern
/// ("pypi.org", "*.github.com", "*", "10.0.0.0/8"), not a glob, and `ports` lists the ports they
/// cover. A rule of every kind (no kinds) does not cover network: an allowlist of destinations
/// is written as network rules, and a blanket "allow everything for agents" rule written for
/// the workbench's own actions must not open the network to whatever runs in the guest.
struct PolicyRule
{
    QList<ActionKind> kinds;
    QString pattern = QStringLiteral("*");
    PolicyDecision decision = PolicyDecision::Ask;
    QList<quint16> ports = {}; ///< network rules: ports covered; empty: 80 and 443

    /// Whether the rule names `kind`: listed in kinds, or kinds empty and `kind` not network.
    bool covers(ActionKind kind) const
    {
        return kinds.isEmpty() ? kind != ActionKind::Network : kinds.contains(kind);
    }
    /// Network rules: whether `port` is one of `ports` (80 or 443 when there are none).
    bool coversPort(quint16 port) const;
    /// Network rules: `pattern` as a NetworkPattern; nullopt when it does not parse (never in a
    /// policy that load() or parse() made).
    std::optional<NetworkPattern> networkPattern() const;
    /// Whether the rule covers network, its pattern matches `destination` and it covers the
    /// destination's port.
    bool matchesDestination(const NetworkDestination& destination) const;
    /// Whether the rule covers request.kind and its pattern matches the request's whole subject:
    /// for exec and run the whole line ("NAME=value … command", commandWithEnvironment()); for
    /// network the destination (matchesDestination()).
    /// Policy::verdict() uses it for the actions it does not judge command by command.
    bool matches(const ActionRequest& request) const;
    /// Whether `pattern` matches `text` whole.
    bool matchesText(const QString& text) const;
    bool operator==(const PolicyRule&) const = default;
};

/// What the policy decided about one command of an exec line or sh script.
struct CommandVerdict
{
    QString command; ///< PolicyCommand::text: "A=1 rm -rf /root"
    PolicyDecision decision = PolicyDecision::Ask;
    std::optional<PolicyRule> rule; ///< the first matching rule; empty when none matched
    int ruleNumber = 0;             ///< `rule`'s position in its list, from 1
    QString workspace;              ///< the list `rule` is in; empty for the default rules
    /// Why the command is never allowed (PolicyCommand::askedBecause); empty for most.
    QString askedBecause;

    /// `policy rule 1 (exec "rm *")` (see PolicyVerdict::ruleText()); empty without a rule.
    QString ruleText() const;
    /// For the approver: "allowed by policy rule 1 (exec \"ls *\")", "denied by …", "asked by
    /// …", "no rule: asked", or askedBecause ("eval: the policy cannot see what it runs"),
    /// after the rule that asked when one did.
    QString explanation() const;
    bool operator==(const CommandVerdict&) const = default;
};

/// What the policy decided about one action, and which rule decided it (Policy::verdict()).
///
/// exec and run (sh): the action is allowed when every command is allowed; any denied command
/// denies it (the first one decides: `rule` and `command` are its); otherwise it is asked
/// (`rule` and `command` are the first asked command's).
struct PolicyVerdict
{
    PolicyDecision decision = PolicyDecision::Ask;
    /// The deciding rule; empty when none matched or the actor is not an agent.
    std::optional<PolicyRule> rule;
    int ruleNumber = 0; ///< `rule`'s position in its list, from 1
    QString workspace;  ///< the list `rule` is in: a workspace's name; empty for the default rules
    /// exec, run (sh): the deciding command (CommandVerdict::command); network: the
    /// destination ("pypi.org:443", NetworkDestination::display())
    QString command;
    QList<CommandVerdict> commands; ///< exec, run (sh): every command of the line, in source order

    /// The deciding rule for a person or an agent to find it: `policy rule 3 (exec "rm *")`,
    /// `policy rule 1 of workspace 'demo' (exec,run "rm *")`, `policy rule 2 (any "*")` (a rule
    /// of every kind), `policy rule 2 (network "*.github.com" ports 443,22)`; the pattern is
    /// quoted as a JSON string. Empty without a rule.
    QString ruleText() const;
    /// A denial's reason: `denied by policy rule 1 (exec "rm *"): rm -rf /root` (the command
    /// for exec and run (sh) only), `denied by policy rule 1 (network "*"): evil.example:443`.
    QString denialReason() const;
};

/// Which actions run without asking, wait for a person, or never run: a default rule list plus
/// one list per workspace, kept in a JSON file (defaultPath()).
///
/// Evaluation (decide()): actions asked by a person at the window or by the CLI are always
/// allowed: they are not asked, the policy governs agents. For an agent, the rules of the
/// action's workspace are tried first, in order, then the default rules, in order; the first
/// rule that matches decides. When none matches the action is asked. exec and run (sh) are
/// decided per command (PolicyVerdict); a command the policy cannot see through
/// (PolicyCommand::askedBecause) skips the allow rules.
///
/// Network (the egress proxy's connections, ActionRequest::destination) is judged for EVERY
/// actor: the traffic comes from the guest's programs, whoever started them. A network rule
/// matches when its pattern matches the destination (NetworkPattern::matches(): names before
/// they are resolved, addresses only when given as addresses) and its ports hold the port.
/// Once an allowed or approved name is resolved, refusedAddress() says whether an address it
/// resolved to is out of bounds.
///
/// Pause while waiting (pausesWhileWaiting()): whether a running workspace is paused while an
/// action for it waits for a person (ApprovalPause); the workspace's own setting, else the
/// policy's, which is off by default.
///
/// File format (UTF-8 JSON, written indented by save()):
///
///     {
///       "version": 1,
///       "pauseWhileWaiting": false,
///       "default": [
///         { "kinds": ["exec"], "pattern": "rm -rf /*", "decision": "deny" },
///         { "kinds": ["pause", "resume", "checkpoint"], "pattern": "*", "decision": "allow" }
///       ],
///       "workspaces": {
///         "agent-1": [ { "kinds": ["file-write"], "pattern": "/root/scratch/*", "decision": "allow" },
///                      { "kinds": ["network"], "pattern": "*.github.com", "ports": [443, 22], "decision": "allow" } ],
///         "demo": { "pauseWhileWaiting": true, "rules": [ { "kinds": ["exec"], "decision": "ask" } ] }
///       }
///     }
///
/// "kinds" holds action kind names (actionKindName()); missing or empty means every kind.
/// "pattern" defaults to "*". "decision" is required. A rule that names network names only
/// network; its pattern must be a NetworkPattern, and only it may have "ports" (a non-empty
/// list of 1–65535; missing: 80 and 443). A workspace maps to its rule list, or
/// to an object with "rules" (default: none) and "pauseWhileWaiting" (default: the policy's).
/// "pauseWhileWaiting" is true or false; missing at the top means false.
class Policy
{
public:
    static constexpr int kVersion = 1;

    QList<PolicyRule> defaultRules;
    QMap<QString, QList<PolicyRule>> workspaceRules; ///< by workspace name
    bool pauseWhileWaiting = false;                  ///< for workspaces without their own setting
    QMap<QString, bool> workspacePauseWhileWaiting;  ///< a workspace's own setting, by name

    /// Whether workspace `name` is paused while an action for it waits for a person.
    bool pausesWhileWaiting(const QString& name) const
    {
        return workspacePauseWhileWaiting.value(name, pauseWhileWaiting);
    }

    /// dataDir()/policy.json
    static QString defaultPath();

    /// Gives workspace `to` (a fork) a copy of workspace `from`'s own rules and pause setting in
    /// the policy file at `path`, replacing any `to` had; nothing changes when `from` has none.
    /// Errors: the file cannot be read or written.
    static Expected<void> copyWorkspace(const QString& path, const QString& from, const QString& to);

    /// The decision for `request` (see the class comment).
    PolicyDecision decide(const ActionRequest& request) const { return verdict(request).decision; }
    /// The decision for `request` with the rule that made it.
    PolicyVerdict verdict(const ActionRequest& request) const;

    /// After the proxy resolved an allowed or approved name (request.destination.addresses
    /// filled): why it must not connect, or nullopt. Each address in a special-purpose range
    /// (specialAddressRange()) must be named explicitly (NetworkPattern::namesExplicitly()) by a
    /// network rule of the workspace or the default list that covers the port; the first such
    /// rule decides, and only an allow rule lets the address through (a deny or ask rule never
    /// makes it explicit, and the person who approved a name did not see where it resolves).
    /// A literal-address destination is checked the same way. E.g. "pypi.example resolves to
    /// 127.0.0.1 (loopback); no rule names that host or range". The proxy connects only to
    /// the addresses it checked.
    std::optional<QString> refusedAddress(const ActionRequest& request) const;

    /// What "allow always" (in the approval queue, or on a Network tab row) and "deny always"
    /// do for a connection: puts first in `workspace`'s rules (the default rules for an empty
    /// name: an ephemeral run has no workspace of its own) a network rule deciding `decision`
    /// for exactly destination.host (a single address for a literal IP) and destination.port,
    /// replacing a rule of that list for the same host and port (whatever it decided).
    /// The port is always written, even 80 or 443: the person approved that port only, and
    /// approving https must not open plain http to the same host.
    void setDestinationRule(const QString& workspace, const NetworkDestination& destination,
                            PolicyDecision decision);

    /// What load() makes of a file that does not exist.
    enum class IfMissing
    {
        Empty, ///< the empty policy: agents are asked for everything (the default file)
        Error, ///< "the policy file PATH does not exist" (a file the user named)
    };

    /// Reads the policy file at `path`. Errors name the file and the place: "policy.json:3:14:
    /// unterminated string" for bad JSON, "policy.json: default[1].decision: \"maybe\" is not
    /// allow, ask or deny" for a bad field, "policy.json: workspaces.demo.pauseWhileWaiting:
    /// must be true or false", "cannot read the policy file PATH: REASON".
    static Expected<Policy> load(const QString& path, IfMissing ifMissing = IfMissing::Empty);
    /// Parses `json`; `source` names it in errors.
    static Expected<Policy> parse(const QByteArray& json, const QString& source);

    /// The file's JSON text.
    QByteArray toJson() const;
    /// Writes the file atomically (QSaveFile), creating its folder. Errors name the file.
    Expected<void> save(const QString& path) const;

    bool operator==(const Policy&) const = default;

private:
    /// Calls `take(rule, number from 1, workspace or "")` for `workspace`'s rules, then the
    /// default ones, until it returns true; whether one did.
    bool firstRule(const QString& workspace,
                   const std::function<bool(const PolicyRule&, int, const QString&)>& take) const;
};

} // namespace sbw
