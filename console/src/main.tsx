import { render } from 'preact'
import { App } from './app'
import { applyTheme, storedTheme } from './ui/theme'
import './styles.css'

applyTheme(storedTheme())
render(<App />, document.getElementById('app')!)
