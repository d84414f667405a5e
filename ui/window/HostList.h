#pragma once

#include <QListWidget>

namespace sbw {

class Host;
class Workbench;
struct StatsTick;

/// The workbench's hosts above the session list, one line each, in the order of
/// Workbench::hosts(): the host's name, its connection state (connecting, active, lost,
/// reconnecting in N s) and, while active, its accelerator and figures from its stats sampler:
/// "127.0.0.1 · active · TCG · CPU 12 % · memory 1.2 of 3.9 GiB". A lost host's line says why
/// in its tooltip. Lines follow the hosts' state changes and samples; a host added later gets a
/// line of its own. Lines wrap where the list is narrower; the list is as tall as its lines.
class HostList : public QListWidget
{
    Q_OBJECT

public:
    explicit HostList(Workbench* workbench, QWidget* parent = nullptr);

    /// The line of `host` as it reads now.
    static QString lineOf(const Host& host);

protected:
    /// Fits the list's height to its lines, wrapped at its width: every line shows whole.
    void updateGeometries() override;

private:
    void add(Host* host);
    void update(Host* host);

    Workbench* m_workbench;
};

} // namespace sbw
