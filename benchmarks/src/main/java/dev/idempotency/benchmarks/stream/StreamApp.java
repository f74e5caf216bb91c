package dev.idempotency.benchmarks.stream;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/** The application of {@link StarterStreamConsumer}: everything auto-configured, one listener. */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(StreamListener.class)
class StreamApp {

}
