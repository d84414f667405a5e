// What a guest's program sends the egress proxy, read by HttpProxyRequestReader: hostile bytes
// before anything is decided. However the bytes are split, the reader reaches the same state,
// request and (unless malformed) body; the body is never more than was sent; a forwarded head always names one
// Host and ends the connection after one request.
//
// Input: the first byte picks where the bytes are split in two; the rest is the connection.

#include "FuzzCheck.h"
#include "network/HttpProxyRequest.h"

#include <cstddef>
#include <cstdint>

namespace {

struct Read
{
    sbw::HttpProxyRequestReader::State state;
    qsizetype consumed = 0;
    QByteArray body;
    QByteArray head;
    QString host;
    quint16 port = 0;
};

Read readSplit(QByteArrayView bytes, qsizetype split)
{
    sbw::HttpProxyRequestReader reader;
    Read read;
    for (QByteArrayView piece : {bytes.first(split), bytes.sliced(split)}) {
        const auto fed = reader.feed(piece);
        read.consumed += fed.consumed;
        read.body += fed.body.toByteArray();
        if (fed.consumed < piece.size())
            break;
    }
    read.state = reader.state();
    if (read.state == sbw::HttpProxyRequestReader::State::Body || read.state == sbw::HttpProxyRequestReader::State::Done) {
        read.host = reader.request().host;
        read.port = reader.request().port;
        if (!reader.request().isConnect())
            read.head = reader.request().forwardedHead();
    }
    return read;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 1)
        return 0;
    const QByteArrayView bytes(reinterpret_cast<const char*>(data) + 1, qsizetype(size - 1));
    const qsizetype split = bytes.isEmpty() ? 0 : data[0] % (bytes.size() + 1);
    const Read whole = readSplit(bytes, bytes.size());
    const Read pieces = readSplit(bytes, split);
    SBW_FUZZ_CHECK(whole.state == pieces.state, "the split does not change the state");
    // Bytes before a malformed part are passed on as they arrive, so only a good body is whole.
    if (whole.state != sbw::HttpProxyRequestReader::State::Error)
        SBW_FUZZ_CHECK(whole.body == pieces.body, "the split does not change the body");
    SBW_FUZZ_CHECK(whole.host == pieces.host && whole.port == pieces.port, "the split does not change the destination");
    SBW_FUZZ_CHECK(whole.body.size() <= bytes.size(), "the body is no more than was sent");
    if (whole.state == sbw::HttpProxyRequestReader::State::Done)
        SBW_FUZZ_CHECK(whole.consumed == pieces.consumed, "the split does not change where the request ends");
    if (!whole.head.isEmpty()) {
        SBW_FUZZ_CHECK(whole.head.endsWith("Connection: close\r\n\r\n"), "one request per connection");
        SBW_FUZZ_CHECK(whole.head.count("\r\nHost: ") == 1, "one Host, the judged one");
        SBW_FUZZ_CHECK(whole.port != 0, "a forwarded request names a port");
    }
    return 0;
}
