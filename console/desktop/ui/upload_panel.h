#pragma once
// The upload queue on screen: one row per file with a progress bar, the
// totals line (rate, ETA, failures), cancel and retry.

#include <QWidget>

class QLabel;
class QProgressBar;
class QTableView;

namespace tessera::console {

class UploadModel;
class UploadQueue;

class UploadPanel : public QWidget {
    Q_OBJECT
public:
    UploadPanel(UploadQueue* queue, QWidget* parent = nullptr);
    UploadModel* model() const { return m_model; }

private:
    void updateTotals();

    UploadQueue* m_queue;
    UploadModel* m_model;
    QTableView* m_view;
    QLabel* m_totals;
    QProgressBar* m_total;
};

}  // namespace tessera::console
