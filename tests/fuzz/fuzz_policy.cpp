// The approval policy file (Policy::parse), which a person or a tool may have written badly,
// and the decisions of whatever it parses to.
//
// Input: the file's bytes.

#include "FuzzCheck.h"
#include "approval/Policy.h"

#include <cstddef>
#include <cstdint>

namespace {

/// A few agent actions to decide: every kind of subject a rule's pattern sees.
QList<sbw::ActionRequest> requests()
{
    QList<sbw::ActionRequest> list;
    for (sbw::ActionKind kind : sbw::policyActionKinds()) {
        sbw::ActionRequest request;
        request.actor = sbw::Actor{sbw::Actor::Kind::Agent, QStringLiteral("fuzz")};
        request.kind = kind;
        request.sandbox = QStringLiteral("demo");
        request.command = QStringLiteral("rm -rf /tmp/x");
        request.environment = {QStringLiteral("A=1")};
        request.path = QStringLiteral("/root/scratch/a b");
        list << request;
    }
    // Connections through the egress proxy: a name that resolved to a public and a loopback
    // address, and a literal address.
    sbw::ActionRequest connection = list.first();
    connection.kind = sbw::ActionKind::Network;
    connection.destination = {
        QStringLiteral("pypi.example.com"),
        443,
        {QHostAddress(QStringLiteral("151.101.0.223")), QHostAddress::LocalHost}};
    list << connection;
    connection.destination = {QStringLiteral("10.0.0.5"), 8080, {}};
    list << connection;
    return list;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const QList<sbw::ActionRequest> asked = requests();
    const QByteArray json(reinterpret_cast<const char*>(data), qsizetype(size));
    const auto policy = sbw::Policy::parse(json, QStringLiteral("policy.json"));
    if (!policy) {
        SBW_FUZZ_CHECK(!policy.error().message.isEmpty(), "a refused file has a message");
        return 0;
    }
    for (const sbw::ActionRequest& request : asked) {
        (void)policy->verdict(request).ruleText();
        if (request.kind == sbw::ActionKind::Network)
            (void)policy->refusedAddress(request);
    }
    const auto again = sbw::Policy::parse(policy->toJson(), QStringLiteral("policy.json"));
    SBW_FUZZ_CHECK(bool(again), "a parsed policy's own file parses");
    SBW_FUZZ_CHECK(again.value() == policy.value(), "a policy survives being saved and read");
    return 0;
}
