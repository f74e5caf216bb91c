package dev.idempotency.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * The HTTP part of the demo: sends one {@code POST /transfers} twice with one
 * {@code Idempotency-Key}, as a client that timed out and retried would, and checks that the
 * handler ran once, wrote one row, and that the retry got the first response marked as a replay.
 * The exit code is 1 otherwise.
 */
@Component
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty("demo.enabled")
public class HttpDemo implements ApplicationRunner, ExitCodeGenerator {

	private static final Log logger = LogFactory.getLog(HttpDemo.class);

	private final Environment environment;

	private final TransferController transfers;

	private volatile boolean passed;

	public HttpDemo(Environment environment, TransferController transfers) {
		this.environment = environment;
		this.transfers = transfers;
	}

	@Override
	public void run(ApplicationArguments args) throws Exception {
		URI uri = URI.create("http://127.0.0.1:" + this.environment.getRequiredProperty("local.server.port")
				+ "/transfers");
		String key = UUID.randomUUID().toString();
		String reference = "transfer-" + key.substring(0, 8);
		String body = "{\"reference\":\"" + reference + "\",\"userId\":\"user-1\",\"points\":25}";
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
		HttpResponse<String> first = send(client, uri, key, body);
		HttpResponse<String> retry = send(client, uri, key, body);
		boolean replayed = retry.headers().firstValue("Idempotent-Replayed").isPresent();
		int rows = this.transfers.rows(reference);
		this.passed = first.statusCode() == 201 && retry.statusCode() == 201 && replayed
				&& retry.body().equals(first.body()) && rows == 1;
		logger.info(String.join(System.lineSeparator(), "", "HTTP: POST /transfers twice with Idempotency-Key " + key,
				"  first: " + first.statusCode() + " " + first.headers().firstValue("Location").orElse("") + " "
						+ first.body(),
				"  retry: " + retry.statusCode() + " Idempotent-Replayed: "
						+ retry.headers().firstValue("Idempotent-Replayed").orElse("(absent)") + " " + retry.body(),
				"  transfer rows written: " + rows + ", handler runs: " + this.transfers.executions(),
				"  HTTP verdict: " + (this.passed ? "PASS (one transfer, the retry replayed)" : "FAIL")));
	}

	@Override
	public int getExitCode() {
		return this.passed ? 0 : 1;
	}

	private static HttpResponse<String> send(HttpClient client, URI uri, String key, String body) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(uri)
			.timeout(Duration.ofSeconds(10))
			.header("Content-Type", "application/json")
			.header("Idempotency-Key", key)
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
		return client.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
