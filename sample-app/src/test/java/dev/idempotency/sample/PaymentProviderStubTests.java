package dev.idempotency.sample;

import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.idempotency.sample.PaymentProviderClient.ChargeStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The payment provider stub and its client, over real HTTP on the loopback address: the stub counts
 * every charge (it does not deduplicate, so the sample's {@code @Idempotent} has to) and answers
 * what a reconciler asks.
 */
class PaymentProviderStubTests {

	private final PaymentProviderStub stub = new PaymentProviderStub();

	private PaymentProviderClient client;

	@BeforeEach
	void start() {
		this.stub.start();
		this.client = new PaymentProviderClient(this.stub.baseUri());
	}

	@AfterEach
	void stop() {
		if (this.stub.isRunning()) {
			this.stub.stop();
		}
	}

	@Test
	void listensOnALoopbackPort() {
		assertThat(this.stub.isRunning()).isTrue();
		assertThat(this.stub.baseUri().getHost()).isEqualTo("127.0.0.1");
		assertThat(this.stub.baseUri().getPort()).isPositive();
	}

	@Test
	void countsEveryChargeOfAPayment() {
		this.client.charge("pay-1", 1200);
		this.client.charge("pay-1", 1200);
		this.client.charge("pay-2", 300);
		assertThat(this.stub.charges("pay-1")).isEqualTo(2);
		assertThat(this.stub.charges("pay-2")).isEqualTo(1);
		assertThat(this.stub.charges("pay-3")).isZero();
		assertThat(this.stub.totalCharges()).isEqualTo(3);
		assertThat(this.stub.chargesByPayment()).containsOnlyKeys("pay-1", "pay-2");
	}

	@Test
	void answersWhetherAPaymentWasCharged() {
		assertThat(this.client.status("pay-1")).isEqualTo(ChargeStatus.NONE);
		this.client.charge("pay-1", 1200);
		assertThat(this.client.status("pay-1")).isEqualTo(ChargeStatus.CHARGED);
		assertThat(this.stub.charges("pay-1")).as("asking is not charging").isEqualTo(1);
	}

	@Test
	void refusesOtherMethodsAndPaths() throws Exception {
		HttpClient http = HttpClient.newHttpClient();
		URI charge = this.stub.baseUri().resolve("/charges/pay-1");
		assertThat(http.send(HttpRequest.newBuilder(charge).DELETE().build(), HttpResponse.BodyHandlers.ofString())
			.statusCode()).isEqualTo(405);
		assertThat(http.send(HttpRequest.newBuilder(this.stub.baseUri().resolve("/charges/")).GET().build(),
				HttpResponse.BodyHandlers.ofString())
			.statusCode()).isEqualTo(404);
		assertThat(this.stub.totalCharges()).isZero();
	}

	@Test
	void aClientOfAStoppedProviderFails() {
		this.stub.stop();
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> this.client.status("pay-1"));
	}

}
