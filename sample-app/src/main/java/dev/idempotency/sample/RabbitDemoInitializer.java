package dev.idempotency.sample;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
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
 * Decides, before any bean exists, whether the demo runs its RabbitMQ flow: unless
 * {@code demo.rabbit.enabled} is set, only when RabbitMQ answers the AMQP protocol header on
 * {@code spring.rabbitmq.host}/{@code port}. Without it, no queue is declared and no
 * {@code @RabbitListener} registered, so start-up never waits for a broker that is not there. Also
 * names the run's queue, once, so the listener annotation and the flow see the same name.
 */
public class RabbitDemoInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	private static final Log logger = LogFactory.getLog(RabbitDemoInitializer.class);

	private static final int PROBE_TIMEOUT_MILLIS = 500;

	/** AMQP 0-9-1's protocol header; a broker answers with its {@code connection.start} frame (type 1). */
	private static final byte[] PROTOCOL_HEADER = { 'A', 'M', 'Q', 'P', 0, 0, 9, 1 };

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		ConfigurableEnvironment environment = context.getEnvironment();
		Map<String, Object> decided = new HashMap<>();
		if (!environment.containsProperty(RabbitFlow.ENABLED)) {
			decided.put(RabbitFlow.ENABLED, rabbitFlowCanRun(environment));
		}
		if (!environment.containsProperty(RabbitFlow.QUEUE)) {
			decided.put(RabbitFlow.QUEUE, "demo-orders-" + UUID.randomUUID().toString().substring(0, 8));
		}
		environment.getPropertySources().addLast(new MapPropertySource("rabbitDemo", decided));
	}

	private static boolean rabbitFlowCanRun(ConfigurableEnvironment environment) {
		String host = environment.getProperty("spring.rabbitmq.host", "localhost");
		int port = environment.getProperty("spring.rabbitmq.port", Integer.class, 5672);
		if (answersProtocolHeader(host, port)) {
			return true;
		}
		logger.info("RabbitMQ does not answer at " + host + ":" + port
				+ ": RabbitMQ flow skipped (start it, or set spring.rabbitmq.host/port, to add the RabbitMQ flow)");
		return false;
	}

	private static boolean answersProtocolHeader(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), PROBE_TIMEOUT_MILLIS);
			socket.setSoTimeout(PROBE_TIMEOUT_MILLIS);
			OutputStream out = socket.getOutputStream();
			out.write(PROTOCOL_HEADER);
			out.flush();
			InputStream in = socket.getInputStream();
			return in.read() == 1;
		}
		catch (IOException | IllegalArgumentException ex) {
			return false;
		}
	}

}
