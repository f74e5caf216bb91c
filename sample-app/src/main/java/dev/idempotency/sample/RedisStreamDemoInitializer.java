package dev.idempotency.sample;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Decides, before any bean exists, whether the demo runs its Redis Stream flow: unless
 * {@code demo.redis-stream.enabled} is set, only when Redis answers a {@code PING} on
 * {@code spring.data.redis.*}. Deciding this early keeps start-up independent of Redis: without it,
 * no stream listener is registered and the starter's stream adapter has nothing to read. Also
 * names the run's stream, once, so the listener annotation and the runner see the same key.
 */
public class RedisStreamDemoInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	private static final Log logger = LogFactory.getLog(RedisStreamDemoInitializer.class);

	private static final int PROBE_TIMEOUT_MILLIS = 500;

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		ConfigurableEnvironment environment = context.getEnvironment();
		Map<String, Object> decided = new HashMap<>();
		if (!environment.containsProperty(RedisStreamFlow.ENABLED)) {
			decided.put(RedisStreamFlow.ENABLED, redisStreamFlowCanRun(environment));
		}
		if (!environment.containsProperty(RedisStreamFlow.STREAM)) {
			decided.put(RedisStreamFlow.STREAM, "demo-orders-" + UUID.randomUUID().toString().substring(0, 8));
		}
		environment.getPropertySources().addLast(new MapPropertySource("redisStreamDemo", decided));
	}

	private static boolean redisStreamFlowCanRun(ConfigurableEnvironment environment) {
		InetSocketAddress address = redisAddress(environment);
		if (answersPing(address)) {
			return true;
		}
		logger.info("Redis does not answer at " + address.getHostString() + ":" + address.getPort()
				+ ": Kafka flow only (set spring.data.redis.host/port to add the Redis Stream flow)");
		return false;
	}

	private static InetSocketAddress redisAddress(ConfigurableEnvironment environment) {
		String url = environment.getProperty("spring.data.redis.url");
		if (url != null && !url.isBlank()) {
			URI uri = URI.create(url);
			return InetSocketAddress.createUnresolved(uri.getHost(), (uri.getPort() != -1) ? uri.getPort() : 6379);
		}
		return InetSocketAddress.createUnresolved(environment.getProperty("spring.data.redis.host", "localhost"),
				environment.getProperty("spring.data.redis.port", Integer.class, 6379));
	}

	/** Any reply counts (an -NOAUTH too): it is a Redis, and the client will authenticate. */
	private static boolean answersPing(InetSocketAddress address) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(address.getHostString(), address.getPort()), PROBE_TIMEOUT_MILLIS);
			socket.setSoTimeout(PROBE_TIMEOUT_MILLIS);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			int first = in.read();
			return first == '+' || first == '-';
		}
		catch (IOException | IllegalArgumentException ex) {
			return false;
		}
	}

}
