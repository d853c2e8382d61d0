// The response head the HTTP session writes by hand: exact bytes for the
// common answers, field replacement, the fields the session owns, versions
// and keep-alive, bodiless statuses, and CR/LF never passing from a value.
#include "net/http_session.h"

#include <QTest>

using namespace tessera::daemon::net;

class TestResponseHead : public QObject {
    Q_OBJECT

private slots:
    void fileAnswer()
    {
        Response r;
        r.header("ais-checksum-type", "xxhash").header("Content-Type", "application/octet-stream");
        std::string out = "leftover";
        writeResponseHead(out, 11, r, true, 1024);
        QCOMPARE(out, std::string(
                          "HTTP/1.1 200 OK\r\nais-checksum-type: xxhash\r\nContent-Type: application/octet-stream\r\n"
                          "Server: tessera\r\nContent-Length: 1024\r\n\r\n"));
    }

    void redirectClosing()
    {
        auto r = Response::redirect("http://127.0.0.1:9/v1/objects/b/o");
        std::string out;
        writeResponseHead(out, 11, r, false, 0);
        QCOMPARE(out, std::string("HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9/v1/objects/b/o\r\n"
                                  "Server: tessera\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"));
    }

    void http10KeepAlive()
    {
        Response r;
        r.status = 404;
        std::string out;
        writeResponseHead(out, 10, r, true, 7);
        QCOMPARE(out, std::string("HTTP/1.0 404 Not Found\r\nServer: tessera\r\nConnection: keep-alive\r\n"
                                  "Content-Length: 7\r\n\r\n"));
    }

    void laterFieldReplacesEarlierAndSessionFieldsWin()
    {
        Response r;
        r.header("Content-Type", "text/plain")
            .header("content-length", "999")
            .header("Server", "other")
            .header("CONTENT-TYPE", "application/json")
            .header("Connection", "upgrade");
        std::string out;
        writeResponseHead(out, 11, r, true, 2);
        QCOMPARE(out, std::string("HTTP/1.1 200 OK\r\nCONTENT-TYPE: application/json\r\nServer: tessera\r\n"
                                  "Content-Length: 2\r\n\r\n"));
    }

    // AIStore's one "k=v" line per custom metadata entry: every line stays.
    void customMdLinesRepeat()
    {
        Response r;
        r.header("ais-custom-md", "a=1").header("X-Other", "x").header("ais-custom-md", "b=2").header("x-other", "y");
        std::string out;
        writeResponseHead(out, 11, r, true, 0);
        QCOMPARE(out, std::string("HTTP/1.1 200 OK\r\nais-custom-md: a=1\r\nais-custom-md: b=2\r\nx-other: y\r\n"
                                  "Server: tessera\r\nContent-Length: 0\r\n\r\n"));
    }

    void bodilessStatuses()
    {
        Response r;
        r.status = 204;
        std::string out;
        writeResponseHead(out, 11, r, true, 0);
        QCOMPARE(out, std::string("HTTP/1.1 204 No Content\r\nServer: tessera\r\n\r\n"));
    }

    void crlfNeverPasses()
    {
        Response r;
        r.header("ais-custom-md", "k=v\r\nSet-Cookie: x=1").header("X\nY", "z");
        std::string out;
        writeResponseHead(out, 11, r, true, 0);
        QCOMPARE(out, std::string("HTTP/1.1 200 OK\r\nais-custom-md: k=v  Set-Cookie: x=1\r\nX Y: z\r\n"
                                  "Server: tessera\r\nContent-Length: 0\r\n\r\n"));
    }
};

QTEST_APPLESS_MAIN(TestResponseHead)
#include "test_response_head.moc"
