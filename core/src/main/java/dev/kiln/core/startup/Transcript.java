package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Keeps one server's {@link Conversation} as it happens: a {@link Channel} wrapped by {@link #wrap} notes every
 * message the handshake sends and every item it reads; the stderr comes from the channel at the end.
 *
 * <p>Concurrency: written by the handshake thread only (sends and polls happen there); {@link #conversation} is called
 * by the same thread after the handshake. The lock is for a reader that asks early (none today) and costs nothing.
 */
final class Transcript {
    private final Recorder recorder;
    private final List<Entry> entries = new ArrayList<>(); // guarded by this
    private int dropped; // guarded by this

    /** A message with its ticker time; turned into ms after spawn only at the end, when the spawn is known. */
    private record Entry(Conversation.Direction direction, @Nullable String method, @Nullable String id, long at, String json) {
    }

    Transcript(Recorder recorder) {
        this.recorder = recorder;
    }

    /** {@code channel}, noting what crosses it. */
    Channel wrap(Channel channel) {
        return new Channel() {
            @Override
            public void send(ObjectNode message, long deadline) throws IOException, InterruptedException {
                note(Conversation.Direction.SENT, message, recorder.now());
                channel.send(message, deadline);
            }

            @Override
            public @Nullable Incoming poll(long timeoutNanos) throws InterruptedException {
                Incoming in = channel.poll(timeoutNanos);
                if (in instanceof Incoming.Message m) {
                    note(Conversation.Direction.RECEIVED, m.json(), m.at());
                } else if (in instanceof Incoming.Garbage g) {
                    add(new Entry(Conversation.Direction.RECEIVED, null, null, recorder.now(), g.line()));
                } else if (in instanceof Incoming.Oversized o) {
                    add(new Entry(Conversation.Direction.RECEIVED, null, null, recorder.now(),
                            "(a line of " + o.bytes() + " bytes, over Kiln's cap: not read)"));
                }
                return in;
            }

            @Override
            public void negotiated(String protocolVersion) {
                channel.negotiated(protocolVersion);
            }

            @Override
            public boolean fallsBackOnSilence() {
                return channel.fallsBackOnSilence();
            }
        };
    }

    private void note(Conversation.Direction direction, JsonNode message, long at) {
        JsonNode method = message.get("method");
        JsonNode id = message.get("id");
        add(new Entry(direction, method != null && method.isTextual() ? method.asText() : null,
                id == null || id.isNull() ? null : id.isTextual() ? id.asText() : id.toString(), at, message.toString()));
    }

    private synchronized void add(Entry e) {
        if (entries.size() >= Conversation.MAX_MESSAGES) {
            dropped++;
            return;
        }
        entries.add(e);
    }

    /** The conversation so far, with {@code stderr} (the channel's bounded tail) beside it. */
    synchronized Conversation conversation(StderrTail stderr) {
        long spawn = recorder.spawn.get();
        List<Conversation.Message> messages = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            double atMs = spawn == Recorder.UNSET ? 0 : Math.round((e.at() - spawn) / 1e3) / 1e3;
            boolean clipped = e.json().length() > Conversation.MAX_MESSAGE_CHARS;
            messages.add(new Conversation.Message(e.direction(), e.method(), e.id(), atMs,
                    clipped ? e.json().substring(0, Conversation.MAX_MESSAGE_CHARS) : e.json(), clipped));
        }
        return new Conversation(messages, dropped, stderr.text(), stderr.total(), stderr.truncated());
    }
}
