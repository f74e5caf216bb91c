package dev.idempotency.integration;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DuplicateFilter.Answer;
import dev.idempotency.core.DuplicateFilterListener;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.store.redisson.RedissonBloomFilter;
import dev.idempotency.support.DuplicateFilterChain;
import dev.idempotency.testsupport.TestRedisConnections;
import dev.idempotency.testsupport.TestRedissonClients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedissonBloomFilter} as the layer of a {@link DuplicateFilterChain} in front of the JDBC
 * store (H2), through {@code @Idempotent}: a new key goes straight to the store, a learned key is
 * confirmed by the store as a duplicate, and a false positive (a key the filter holds but the store
 * does not) is found by the store and processed.
 */
class RedissonBloomFilterChainIntegrationTests {

	private static final String FILTER = TestRedisConnections.uniqueKeyPrefix(RedissonBloomFilterChainIntegrationTests.class)
			+ "bloom";

	@Test
	void bloomFilterAnswersAndTheStoreConfirmsEveryMaybe() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(BloomApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
					"idempotency.redisson.lock.enabled=false")
			.run()) {
			Work work = context.getBean(Work.class);
			Answers answers = context.getBean(Answers.class);
			RedissonBloomFilter bloom = context.getBean(RedissonBloomFilter.class);
			try {
				work.apply("k-1");
				assertThat(answers.answers).containsEntry(Answer.ABSENT, 1);
				work.apply("k-1");
				assertThat(answers.answers).containsEntry(Answer.MAYBE, 1);
				assertThat(work.applied()).as("the duplicate was confirmed by the store and skipped").isEqualTo(1);
				// A false positive: the filter holds a key the store never processed.
				bloom.learn(new IdempotencyKey("it-bloom", "k-2"));
				work.apply("k-2");
				assertThat(answers.answers).containsEntry(Answer.MAYBE, 2);
				assertThat(answers.falsePositives).hasValue(1);
				assertThat(work.applied()).as("the false positive was processed").isEqualTo(2);
			}
			finally {
				TestRedissonClients.deleteKeys(context.getBean(RedissonClient.class), FILTER);
			}
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class BloomApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean(destroyMethod = "shutdown")
		RedissonClient redissonClient() {
			return TestRedissonClients.client();
		}

		@Bean
		RedissonBloomFilter bloomFilter(RedissonClient redisson) {
			return new RedissonBloomFilter(redisson, FILTER, 10_000, 0.01);
		}

		@Bean
		Answers answers() {
			return new Answers();
		}

		@Bean
		DuplicateFilterChain duplicateFilterChain(RedissonBloomFilter bloom, Answers answers) {
			return new DuplicateFilterChain(List.of(bloom), Set.of("it-bloom"), () -> List.of(answers));
		}

		@Bean
		Work work() {
			return new Work();
		}

	}

	static class Answers implements DuplicateFilterListener {

		final Map<Answer, Integer> answers = new ConcurrentHashMap<>();

		final AtomicInteger falsePositives = new AtomicInteger();

		@Override
		public void onFilterAnswer(String filter, Answer answer) {
			this.answers.merge(answer, 1, Integer::sum);
		}

		@Override
		public void onFilterFalsePositive(String filter) {
			this.falsePositives.incrementAndGet();
		}

	}

	static class Work {

		private final AtomicInteger applied = new AtomicInteger();

		@Idempotent(key = "#key", namespace = "it-bloom")
		public void apply(String key) {
			this.applied.incrementAndGet();
		}

		public int applied() {
			return this.applied.get();
		}

	}

}
