// The first bytes a guest's program sends through the egress proxy, read for the server name of
// a TLS ClientHello (readClientHelloSni()): hostile bytes before anything is decided.
//
// Input: the bytes of the connection.

#include "FuzzCheck.h"
#include "network/NetworkDestination.h"
#include "network/TlsClientHello.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using Status = sbw::ClientHelloSni::Status;
    const QByteArrayView input(reinterpret_cast<const char*>(data), qsizetype(size));
    const sbw::ClientHelloSni whole = sbw::readClientHelloSni(input);
    if (whole.status == Status::Found) {
        SBW_FUZZ_CHECK(sbw::normaliseHost(whole.serverName) == whole.serverName,
                       "a found name is in its normal form");
        const sbw::NetworkDestination destination{whole.serverName, 443, {}};
        SBW_FUZZ_CHECK(!destination.isLiteralAddress(), "a found name is not an address");
    } else {
        SBW_FUZZ_CHECK(whole.serverName.isEmpty(), "only Found has a name");
    }
    // What a prefix decides, the whole input decides the same way: the proxy may act on the first
    // answer that is not Incomplete. A few prefixes only: every one would be quadratic.
    if (input.size() >= sbw::kMaxClientHelloBytes)
        return 0;
    for (qsizetype part = 1; part <= 8; ++part) {
        const qsizetype length = part == 8 ? input.size() - 1 : input.size() * part / 8;
        if (length < 0)
            continue;
        const sbw::ClientHelloSni prefix = sbw::readClientHelloSni(input.first(length));
        if (prefix.status == Status::Found)
            SBW_FUZZ_CHECK(whole.status == Status::Found && prefix.serverName == whole.serverName,
                           "a prefix that found a name found the whole input's name");
        if (prefix.status != Status::Incomplete)
            SBW_FUZZ_CHECK(prefix == whole, "a decided prefix decides like the whole input");
    }
    return 0;
}
