package dev.idempotency.sample;

import dev.idempotency.core.InvalidIdempotencyKeyException;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Orders → points: an order event is delivered at least once, and {@code @Idempotent} makes sure
 * its points are credited once.
 * <p>
 * The demo runs, prints its report and exits with status 0 when every order was credited exactly
 * once (1 otherwise). Set {@code demo.keep-running=true} to keep the application up instead.
 */
@SpringBootApplication
@EnableConfigurationProperties(DemoProperties.class)
public class SampleApplication {

	/**
	 * The "broker": an in-process stand-in for Kafka until the Kafka adapter lands, subscribed by
	 * consumer group {@code points} to {@link PointsService#credit}.
	 */
	@Bean
	InMemoryOrderBroker orderBroker(PointsService points, DemoProperties demo) {
		return new InMemoryOrderBroker("points", demo.partitions(), demo.maxAttempts(), points::credit,
				InvalidIdempotencyKeyException.class);
	}

	public static void main(String[] args) {
		ConfigurableApplicationContext context = SpringApplication.run(SampleApplication.class, args);
		// Exiting here rather than from the runner keeps tests (which never call main) running.
		if (!context.getEnvironment().getProperty("demo.keep-running", Boolean.class, false)) {
			System.exit(SpringApplication.exit(context));
		}
	}

}
