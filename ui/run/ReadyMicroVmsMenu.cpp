#include "run/ReadyMicroVmsMenu.h"

#include "sandbox/SandboxPool.h"

#include <QActionGroup>
#include <QSettings>

namespace sbw {
namespace {

const QString kSetting = QStringLiteral("run/readyMicroVms");
/// The on/off setting it replaces: off is 0.
const QString kOnOffSetting = QStringLiteral("run/keepMicroVmReady");
constexpr int kSizes[] = {0, 1, 2, 4};

} // namespace

ReadyMicroVmsMenu::ReadyMicroVmsMenu(SandboxPool* pool, QWidget* parent)
    : QMenu(tr("Ready &MicroVMs"), parent), m_pool(pool)
{
    setToolTipsVisible(true);
    auto* group = new QActionGroup(this);
    for (const int size : kSizes) {
        QAction* action = addAction(size == 0 ? tr("&None") : tr("&%1").arg(size));
        action->setCheckable(true);
        action->setData(size);
        action->setToolTip(size == 0 ? tr("Every run starts its own microVM")
                                     : tr("After a run, make the next runs' microVMs in the background and "
                                          "keep %1 paused, so that the next runs start at once; about 200 MB "
                                          "of host memory each")
                                           .arg(size));
        group->addAction(action);
    }
    const QSettings settings;
    choose(settings.value(kSetting, settings.value(kOnOffSetting, true).toBool() ? 1 : 0).toInt());
    connect(group, &QActionGroup::triggered, this, [this](QAction* action) {
        QSettings().setValue(kSetting, action->data().toInt());
        m_pool->setSize(action->data().toInt()); // fewer: the surplus microVMs are destroyed
    });
}

int ReadyMicroVmsMenu::size() const
{
    for (QAction* action : actions())
        if (action->isChecked())
            return action->data().toInt();
    return 0;
}

void ReadyMicroVmsMenu::choose(int size)
{
    QList<QAction*> choices = actions();
    const auto found = std::find_if(choices.begin(), choices.end(),
                                    [size](QAction* action) { return action->data().toInt() == size; });
    (found != choices.end() ? *found : choices.at(1))->setChecked(true);
    m_pool->setSize(this->size());
}

} // namespace sbw
