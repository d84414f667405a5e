#pragma once

#include "action/ActionGate.h"
#include "action/ActionRecord.h"
#include "base/Expected.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

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
struct PolicyRule
{
    QList<ActionKind> kinds;
    QString pattern = QStringLiteral("*");
    PolicyDecision decision = PolicyDecision::Ask;

    bool covers(ActionKind kind) const { return kinds.isEmpty() || kinds.contains(kind); }
    /// Whether the rule covers request.kind and its pattern matches the request's whole subject:
    /// for exec and run the whole line ("NAME=value … command", commandWithEnvironment()).
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
    QString command;    ///< exec, run (sh): the deciding command (CommandVerdict::command)
    QList<CommandVerdict> commands; ///< exec, run (sh): every command of the line, in source order

    /// The deciding rule for a person or an agent to find it: `policy rule 3 (exec "rm *")`,
    /// `policy rule 1 of workspace 'demo' (exec,run "rm *")`, `policy rule 2 (any "*")` (a rule
    /// of every kind); the pattern is quoted as a JSON string. Empty without a rule.
    QString ruleText() const;
    /// A denial's reason: `denied by policy rule 1 (exec "rm *"): rm -rf /root` (the command
    /// for exec and run (sh) only).
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
///         "agent-1": [ { "kinds": ["file-write"], "pattern": "/root/scratch/*", "decision": "allow" } ],
///         "demo": { "pauseWhileWaiting": true, "rules": [ { "kinds": ["exec"], "decision": "ask" } ] }
///       }
///     }
///
/// "kinds" holds action kind names (actionKindName()); missing or empty means every kind.
/// "pattern" defaults to "*". "decision" is required. A workspace maps to its rule list, or
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

    /// The decision for `request` (see the class comment).
    PolicyDecision decide(const ActionRequest& request) const { return verdict(request).decision; }
    /// The decision for `request` with the rule that made it.
    PolicyVerdict verdict(const ActionRequest& request) const;

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
};

} // namespace sbw
