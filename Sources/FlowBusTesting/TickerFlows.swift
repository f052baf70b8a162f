/// A flow where every `tick` from the stepper `ticker` is accepted and pushes one screen.
public let tickerFlows = """
    version: 1
    session:
      root: Ticks
      stepper: { named: ticker }
    steps:
      tick: { n: int }
    flows:
      Ticks:
        root: { stack: ticks }
        on:
          tick:
            - show: Tick
              params: { n: $n }
    """
