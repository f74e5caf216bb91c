package dev.idempotency.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestKafkaBrokers;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One global {@code spring.kafka.consumer.group-id} for the whole application, as many have, and two
 * {@code @Idempotent} listeners without a namespace on two topics: the same business key on both
 * topics is two messages, each applied once. (When the default namespace was the group, the second
 * was skipped as a duplicate of the first.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaGlobalGroupIdIntegrationTests {

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic("gg-credits", 1, (short) 1), new NewTopic("gg-debits", 1, (short) 1));
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.group-id=gg-shop",
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false"));
		this.context = new SpringApplicationBuilder(GlobalGroupApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
	}

	@AfterAll
	void stop() {
		this.context.close();
		this.broker.destroy();
	}

	@Test
	void sameKeyOnTwoTopicsOfOneGroupIsAppliedByBothListeners() throws Exception {
		KafkaTemplate<String, String> kafka = this.context.getBean(KafkaTemplate.class);
		for (String key : List.of("W-1", "W-2", "W-3")) {
			kafka.send("gg-credits", key, key).get(10, TimeUnit.SECONDS);
			kafka.send("gg-debits", key, key).get(10, TimeUnit.SECONDS);
			kafka.send("gg-debits", key, key).get(10, TimeUnit.SECONDS);
		}
		await().atMost(30, TimeUnit.SECONDS).until(() -> entries("credit") == 3 && entries("debit") == 3);
		Thread.sleep(500);
		assertThat(entries("credit")).isEqualTo(3);
		assertThat(entries("debit")).isEqualTo(3);
		assertThat(this.jdbc.queryForList("SELECT DISTINCT namespace FROM idempotency_record WHERE namespace LIKE 'gg-shop%'",
				String.class))
			.containsExactlyInAnyOrder("gg-shop:gg-credits", "gg-shop:gg-debits");
	}

	private int entries(String kind) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM kafka_gg_ledger WHERE kind = ?", Integer.class, kind);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class GlobalGroupApplication {

		@Bean
		GroupListeners groupListeners(JdbcTemplate jdbc) {
			jdbc.execute("DROP TABLE IF EXISTS kafka_gg_ledger");
			jdbc.execute("CREATE TABLE kafka_gg_ledger (kind VARCHAR(16) NOT NULL, order_id VARCHAR(64) NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE 'gg-shop%'");
			return new GroupListeners(jdbc);
		}

	}

	static class GroupListeners {

		private final JdbcTemplate jdbc;

		GroupListeners(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		// No groupId: both take spring.kafka.consumer.group-id.
		@KafkaListener(id = "gg-credits", idIsGroup = false, topics = "gg-credits")
		@Idempotent(key = "#payload")
		public void onCredit(String payload) {
			this.jdbc.update("INSERT INTO kafka_gg_ledger (kind, order_id) VALUES ('credit', ?)", payload);
		}

		@KafkaListener(id = "gg-debits", idIsGroup = false, topics = "gg-debits")
		@Idempotent(key = "#payload")
		public void onDebit(String payload) {
			this.jdbc.update("INSERT INTO kafka_gg_ledger (kind, order_id) VALUES ('debit', ?)", payload);
		}

	}

}
