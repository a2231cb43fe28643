#pragma once

#include <QMainWindow>

namespace reconscope::ui {

// The main window only composes panels; each panel brings its own actions.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;
};

} // namespace reconscope::ui
