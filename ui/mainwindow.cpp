#include "ui/mainwindow.h"

#include <QApplication>
#include <QLabel>
#include <QMenuBar>

namespace reconscope::ui {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
{
    setWindowTitle(tr("Reconscope"));
    resize(1400, 900);

    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    auto *quit = fileMenu->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    auto *welcome = new QLabel(tr("Reconscope %1").arg(QStringLiteral(RECONSCOPE_VERSION)), this);
    welcome->setAlignment(Qt::AlignCenter);
    setCentralWidget(welcome);
}

MainWindow::~MainWindow() = default;

} // namespace reconscope::ui
