package dev.idempotency.autoconfigure.redisson;

import java.time.Duration;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Builds a single-server {@link RedissonClient} from the {@code spring.data.redis.*} properties an
 * application already has: {@code host} (localhost), {@code port} (6379), {@code database},
 * {@code username}, {@code password}, {@code ssl.enabled}, {@code timeout} and
 * {@code connect-timeout}. Sentinel, cluster and {@code url} are not read: an application that
 * needs them declares its own {@code RedissonClient} (for example with
 * {@code redisson-spring-boot-starter}).
 */
final class SpringDataRedisClients {

	private static final String PREFIX = "spring.data.redis.";

	private SpringDataRedisClients() {
	}

	static RedissonClient create(Environment environment) {
		return Redisson.create(config(environment));
	}

	static Config config(Environment environment) {
		Binder binder = Binder.get(environment);
		String host = binder.bind(PREFIX + "host", String.class).orElse("localhost");
		int port = binder.bind(PREFIX + "port", Integer.class).orElse(6379);
		boolean ssl = binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false);
		Config config = new Config();
		SingleServerConfig server = config.useSingleServer()
			.setAddress((ssl ? "rediss://" : "redis://") + host + ":" + port)
			.setDatabase(binder.bind(PREFIX + "database", Integer.class).orElse(0));
		String username = binder.bind(PREFIX + "username", String.class).orElse(null);
		if (StringUtils.hasText(username)) {
			server.setUsername(username);
		}
		String password = binder.bind(PREFIX + "password", String.class).orElse(null);
		if (StringUtils.hasText(password)) {
			server.setPassword(password);
		}
		binder.bind(PREFIX + "timeout", Duration.class).ifBound((timeout) -> server.setTimeout(millis(timeout)));
		binder.bind(PREFIX + "connect-timeout", Duration.class)
			.ifBound((timeout) -> server.setConnectTimeout(millis(timeout)));
		return config;
	}

	private static int millis(Duration duration) {
		return (int) Math.min(Integer.MAX_VALUE, duration.toMillis());
	}

}
