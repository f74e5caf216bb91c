package dev.idempotency.redis.stream;

import java.lang.annotation.Annotation;
import java.util.List;

import dev.idempotency.core.MessageTransport;

/**
 * Redis Streams as a {@link MessageTransport}: listeners are {@link RedisStreamListener
 * @RedisStreamListener} methods, named by {@code @RedisStreamListener(id)}; each receives one entry
 * at a time. The Redis clients' connection and timeout exceptions are contributed by the Redis
 * technology (the stores share them), not by this transport. Stateless and thread-safe.
 *
 * @since 0.2.0
 */
public final class RedisStreamMessageTransport implements MessageTransport {

	/** The transport's name. */
	public static final String NAME = "redis-stream";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public List<Class<? extends Annotation>> listenerAnnotationTypes() {
		return List.of(RedisStreamListener.class);
	}

	@Override
	public String listenerId(Annotation listener) {
		if (listener instanceof RedisStreamListener streamListener) {
			return streamListener.id();
		}
		throw new IllegalArgumentException("Not a @RedisStreamListener: " + listener);
	}

	@Override
	public String toString() {
		return NAME;
	}

}
