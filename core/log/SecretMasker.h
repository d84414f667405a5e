#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace sbw {

/// Replaces secret values (a workspace's secret environment variables) with kMask in text that
/// arrives in chunks, so that no secret reaches the command log, its pane or its exports, even
/// when a value is split across two chunks. Bytes that could be the start of a secret are held
/// back until the next chunk shows whether they are; finish() releases them.
///
/// Matching is on exact bytes; longer secrets win where secrets overlap. Empty values are
/// ignored. Not thread-safe: one masker per stream.
class SecretMasker
{
public:
    /// What a secret value is replaced with (UTF-8 "••••").
    static constexpr const char* kMask = "\xE2\x80\xA2\xE2\x80\xA2\xE2\x80\xA2\xE2\x80\xA2";

    explicit SecretMasker(QList<QByteArray> secrets);

    /// Masks `chunk` (after what was held back) and returns what can be shown now.
    QByteArray feed(QByteArrayView chunk);
    /// Returns the held-back bytes, masked. The masker can then be fed again.
    QByteArray finish();

    /// Masks a whole text at once.
    static QByteArray maskAll(QByteArrayView text, const QList<QByteArray>& secrets);

private:
    QByteArray mask(bool final);

    QList<QByteArray> m_secrets; ///< longest first
    QByteArray m_pending;        ///< held back, not yet masked
};

} // namespace sbw
